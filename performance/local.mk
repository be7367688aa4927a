# performance/local.mk — filled in by its own issue
