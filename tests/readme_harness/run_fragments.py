"""Runs the docs' fragments named on its command line in one process and one browser
(``tests/test_readme.py`` starts it). Each fragment gets fresh globals (``page``: a new wrapped
sync page on https://shop.example/, ``sh``: its Stagehand, ``Product``), a fresh page and its
own working directory; "fragment-N.out" gets what it printed, ending in "BLOCK OK" or the
traceback. "fragment-N.where" names the block (file:line) for tracebacks.
"""

import contextlib
import io
import os
import sys
import traceback
from pathlib import Path

from playwright.sync_api import sync_playwright
from pydantic import BaseModel

from stagehand_py import Stagehand, launch_chromium


class Product(BaseModel):
    name: str
    price: float


HOME = os.getcwd()
with sync_playwright() as playwright:
    browser = launch_chromium(playwright.chromium)
    for name in sys.argv[1:]:
        number = name.removeprefix("fragment-").removesuffix(".py")
        where = Path(f"fragment-{number}.where").read_text(encoding="utf-8")
        workdir = os.path.join(HOME, f"cwd-{number}")
        os.makedirs(workdir)
        os.chdir(workdir)
        sh = Stagehand(model="openai/gpt-4.1-mini")
        page = sh.wrap(browser.new_page())
        page.goto("https://shop.example/")
        names = {"__name__": "__main__", "Product": Product, "sh": sh, "page": page}
        output = io.StringIO()
        try:
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                source = Path(HOME, name).read_text(encoding="utf-8")
                exec(compile(source, where, "exec"), names)
            output.write("BLOCK OK\n")
        except BaseException:
            output.write(traceback.format_exc())
        page.context.close()
        os.chdir(HOME)
        with open(f"fragment-{number}.out", "w", encoding="utf-8") as report:
            report.write(output.getvalue())
    browser.close()
