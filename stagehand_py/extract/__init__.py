"""extract()'s pure side: page text from HTML, chunks, schema handling and merging.

Nothing here is public API (``page.extract(...)`` is); ``_js.load_js(name)`` reads the
browser-side script shipped next to this module (``page_html.js``).
"""

__all__: list[str] = []
