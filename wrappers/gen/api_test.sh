#!/bin/sh
# api_test.sh — TAP: every public function declared in kernel/mkkernel.h and
# link/mqlink.h is in the API description (or listed as hand-written runtime)
# with the number of C arguments the header declares.
: "${top_srcdir:=$(dirname "$0")/../..}"
exec "${PYTHON:-python3}" "$top_srcdir/wrappers/gen/mqgen.py" --check \
    "$top_srcdir/wrappers/api/mqlink.api" "$top_srcdir/kernel/mkkernel.h" "$top_srcdir/link/mqlink.h"
