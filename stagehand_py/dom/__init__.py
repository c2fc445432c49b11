"""The DOM view: the page serializer (browser-side scripts shipped as package data), the
parser of its output and the line the model reads for each element it found.

``_js.load_js(name)`` reads a browser-side script next to this module (cached): a single file
such as ``scroll.js``, or the ``serializer/`` directory, whose parts form one function.
:mod:`._wire` parses the serializer's output into a :class:`~stagehand_py.Snapshot` (the
model both views share) and :mod:`._render` writes the lines. Nothing here is public API: the
snapshot's types are ``stagehand_py.Snapshot``, ``Element``, ``Chunk`` and ``Box``.
"""

__all__: list[str] = []
