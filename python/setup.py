"""Builds the `sextant` package with the project's CMake build (no second build system).

`pip install --no-build-isolation ./python` configures the source tree into build-python/ (or
$SEXTANT_CMAKE_BUILD_DIR, e.g. an existing build folder, which makes the install a no-op rebuild),
builds the target sextant_python, and packs the extension, the catalogs and examples (data/) and the
charting library for reports (when installed) into the wheel. Nothing is downloaded.
"""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def cmake_build_dir():
    d = os.environ.get("SEXTANT_CMAKE_BUILD_DIR")
    if not d:
        return os.path.join(ROOT, "build-python")
    if os.path.isabs(d):
        return d
    # pip runs this with python/ as the working directory: a relative folder is the caller's
    # ($PWD, set by the shell pip was started from), else the repository root's. It had resolved
    # to python/build, so `SEXTANT_CMAKE_BUILD_DIR=build pip install ./python` configured a fresh
    # tree there and rebuilt everything.
    for base in (os.environ.get("PWD"), ROOT):
        if base and os.path.exists(os.path.join(base, d, "CMakeCache.txt")):
            return os.path.join(base, d)
    return os.path.join(os.environ.get("PWD") or ROOT, d)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        bdir = cmake_build_dir()
        if not os.path.exists(os.path.join(bdir, "CMakeCache.txt")):
            gen = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.check_call(["cmake", "-S", ROOT, "-B", bdir, *gen, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DSEXTANT_BUILD_BENCH=OFF", f"-DPython_EXECUTABLE={sys.executable}"])
        jobs = os.environ.get("SEXTANT_BUILD_JOBS") or str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "--build", bdir, "--target", "sextant_python", "-j", jobs])
        built = glob.glob(os.path.join(bdir, "python", "sextant", "_sextant*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one _sextant*.so in {bdir}/python/sextant, found {built}")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built[0], dest)


class BuildPyWithData(build_py):
    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "sextant")
        # Every data folder the library reads (the validation CSVs give the validated range and the
        # plan's tie fraction: without them an installed package's numbers and notes differed from
        # the build tree's, 2026-12-04 review).
        for sub in sorted(os.listdir(os.path.join(ROOT, "data"))):
            src = os.path.join(ROOT, "data", sub)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(pkg, "data", sub), dirs_exist_ok=True)
        npm = os.environ.get("SEXTANT_NPM_DIR") or os.path.join(ROOT, ".deps", "npm")
        lib = os.path.join(npm, "node_modules", "echarts", "dist", "echarts.min.js")
        if os.path.isfile(lib):
            shutil.copyfile(lib, os.path.join(pkg, "echarts.min.js"))


setup(ext_modules=[Extension("sextant._sextant", sources=[])],
      cmdclass={"build_ext": CMakeBuild, "build_py": BuildPyWithData},
      zip_safe=False)
