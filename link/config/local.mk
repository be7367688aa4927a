# link/config/local.mk — filled in by its own issue
