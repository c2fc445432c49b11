"""Runs the docs' scripts named on its command line one after the other in one process, each as
``__main__`` in its own working directory (``tests/test_readme.py`` starts it): a script starts
Playwright itself, so this only saves each one the start of a Python process. "script-N.out"
gets what it printed, ending in "BLOCK OK" or the traceback.
"""

import contextlib
import io
import os
import runpy
import sys
import traceback

HOME = os.getcwd()
for name in sys.argv[1:]:
    number = name.removeprefix("script-").removesuffix(".py")
    workdir = os.path.join(HOME, f"cwd-{number}")
    os.makedirs(workdir)
    os.chdir(workdir)
    output = io.StringIO()
    try:
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            runpy.run_path(os.path.join(HOME, name), run_name="__main__")
        output.write("BLOCK OK\n")
    except SystemExit as stop:
        output.write("BLOCK OK\n" if stop.code in (None, 0) else traceback.format_exc())
    except BaseException:
        output.write(traceback.format_exc())
    os.chdir(HOME)
    with open(f"script-{number}.out", "w", encoding="utf-8") as report:
        report.write(output.getvalue())
