"""A Model Context Protocol server (``pystagehand mcp``): one browser, driven in plain language
by a coding agent, with cached acts and pages shown a section at a time.

Built on the official ``mcp`` package (the ``mcp`` extra). See the MCP guide in the docs for
the tools, the options and how to register the server with a coding agent.
"""

from ._options import McpOptions
from ._server import build_server, serve_stdio

__all__ = ["McpOptions", "build_server", "serve_stdio"]
