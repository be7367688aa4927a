# setup.py — build the mqlink extension against an installed libmqlink.
# The glue and the stubs are generated here from wrappers/api/mqlink.api by
# wrappers/gen/mqgen.py, exactly as the autotools build does.
import os
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
WRAPPERS = os.path.dirname(HERE)
API = os.path.join(WRAPPERS, "api", "mqlink.api")
MQGEN = os.path.join(WRAPPERS, "gen", "mqgen.py")


def pkg_config(*args):
    try:
        out = subprocess.check_output(["pkg-config"] + list(args) + ["mqlink"], text=True)
    except (OSError, subprocess.CalledProcessError):
        sys.exit("mqlink: pkg-config cannot find mqlink; set PKG_CONFIG_PATH to the "
                 "installed prefix's lib/pkgconfig")
    return shlex.split(out)


def generate(lang, out):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    subprocess.check_call([sys.executable, MQGEN, API, lang, out])


class BuildExt(build_ext):
    def run(self):
        # generated into the build directory, never into the source tree
        temp = os.path.abspath(self.build_temp)
        glue = os.path.join(temp, "gen", "glue.c")
        generate("python-glue", glue)
        generate("python-h", os.path.join(temp, "gen", "glue.h"))  # runtime.h includes it
        for ext in self.extensions:
            ext.sources = [glue if s == "gen/glue.c" else s for s in ext.sources]
            ext.include_dirs.append(temp)
        super().run()
        # a stub-only package (PEP 561): type checkers skip a lone mqlink.pyi
        generate("python-pyi", os.path.join(self.build_lib, "mqlink-stubs", "__init__.pyi"))


cflags = pkg_config("--cflags")
libs = pkg_config("--libs")
libdirs = [f[2:] for f in libs if f.startswith("-L")]

setup(
    py_modules=[],  # perfserver.py is a program, not part of the package
    ext_modules=[Extension(
        "mqlink",
        sources=["runtime.c", "convert.c", "callback.c", "gen/glue.c"],
        include_dirs=[HERE] + [f[2:] for f in cflags if f.startswith("-I")],
        library_dirs=libdirs,
        runtime_library_dirs=libdirs,
        libraries=[f[2:] for f in libs if f.startswith("-l")],
        extra_compile_args=["-std=gnu11", "-fvisibility=hidden"],
    )],
    cmdclass={"build_ext": BuildExt},
)
