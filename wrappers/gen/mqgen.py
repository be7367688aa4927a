#!/usr/bin/env python3
"""mqgen.py — the generator's entry point, as the build and setup.py run it.
The generator is the package beside this file (mqgen/, see README.md there);
the package directory wins over this file for `import mqgen`."""
import os
import sys

# The source tree may be read-only (make distcheck) and is never written to.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mqgen.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))
