"""``pystagehand mcp``: serve one browser to a coding agent over the Model Context Protocol."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
from collections.abc import Callable
from typing import Any

from .._errors import ConfigurationError
from ..llm import PriceTable
from ._session import DEFAULT_VIEWPORT, api_key_from, settings_from
from ._variables import add_variable_options, credential_variables


def add_mcp_command(commands: Any, page_options: Callable[..., None]) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="serve a browser to a coding agent over MCP (stdio)",
        description="A Model Context Protocol server over stdin/stdout with the tools navigate, "
        "act, observe, check, extract, snapshot, screenshot and agent, on one browser page. "
        "Needs the mcp extra: pip install 'pystagehand[mcp]'.",
    )
    page_options(mcp)
    server = mcp.add_argument_group("server")
    server.add_argument(
        "--view",
        choices=("aria", "dom"),
        default="aria",
        help="how pages are shown to the model and by the snapshot tool (default: aria)",
    )
    server.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop before a model request would take the session's estimated cost past USD",
    )
    server.add_argument(
        "--prices",
        metavar="INPUT,OUTPUT",
        help="the model's prices in US dollars per million prompt and answer tokens, e.g. "
        "0.40,1.60 (needed by --max-cost)",
    )
    server.add_argument(
        "--max-total-tokens",
        type=int,
        metavar="N",
        help="stop before a model request would take the session past N tokens",
    )
    server.add_argument(
        "--allowed-origins",
        metavar="ORIGIN[,ORIGIN]",
        help="the only origins navigate may open, e.g. https://shop.example,http://127.0.0.1:8000"
        " (default: any http(s) page)",
    )
    server.add_argument(
        "--cdp-url",
        metavar="URL",
        help="drive a running Chromium over CDP (e.g. http://127.0.0.1:9222) instead of "
        "launching one",
    )
    server.add_argument(
        "--max-chars",
        type=int,
        default=12_000,
        metavar="N",
        help="characters one snapshot answer holds at most (default: 12000)",
    )
    add_variable_options(mcp, "tool arguments")
    mcp.set_defaults(run=mcp_command)


def mcp_options(args: argparse.Namespace) -> Any:
    """The server's options from the command line (the ``mcp`` package imported here)."""
    if importlib.util.find_spec("mcp") is None:
        raise ConfigurationError(
            "pystagehand mcp needs the mcp package: pip install 'pystagehand[mcp]'."
        )
    from ..mcp import McpOptions

    origins = tuple(o.strip() for o in (args.allowed_origins or "").split(",") if o.strip())
    return McpOptions(
        model=args.model,
        base_url=args.base_url,
        cache_dir=args.cache_dir,
        cache_mode=args.cache_mode,
        view=args.view,
        max_cost_usd=args.max_cost,
        allowed_origins=origins,
        cdp_url=args.cdp_url,
        headed=args.headed,
        channel=args.browser_channel,
        storage_state=args.storage_state,
        viewport=args.viewport or DEFAULT_VIEWPORT,
        timeout_s=args.timeout or 60.0,
        max_chars=args.max_chars,
        variables=credential_variables(args),
    )


def _prices(spec: str | None, model: str | None) -> PriceTable | None:
    """``--prices INPUT,OUTPUT`` as the price table of the server's model."""
    if spec is None:
        return None
    try:
        given, answered = (float(part) for part in spec.split(","))
    except ValueError:
        raise ConfigurationError(
            f"--prices expects INPUT,OUTPUT in US dollars per million tokens, got {spec!r}."
        ) from None
    if not model:
        raise ConfigurationError("--prices needs --model (the model the prices are for).")
    return PriceTable.of({model: {"input": given, "output": answered}})


def mcp_command(args: argparse.Namespace) -> int:
    options = mcp_options(args)
    from .._async.stagehand import AsyncStagehand
    from ..mcp import serve_stdio

    caps: dict[str, Any] = {"snapshot": options.view}
    if options.max_cost_usd is not None:
        caps["max_cost_usd"] = options.max_cost_usd
    if args.max_total_tokens is not None:
        caps["max_total_tokens"] = args.max_total_tokens
    stagehand = AsyncStagehand(
        options.model,
        api_key=api_key_from(args),
        base_url=options.base_url,
        cache_dir=options.cache_dir,
        settings=settings_from(args).model_copy(update=caps),
        prices=_prices(args.prices, options.model),
    )
    asyncio.run(serve_stdio(options, stagehand))
    return 0
