"""mkdocs hook: the command-line reference, generated from ulidkeys' own argparse parser when
the site is built, so every subcommand and option is there and none can go stale."""

from __future__ import annotations

import argparse
from typing import Any

from ulidkeys.cli import build_parser

MARK = "<!-- cli-reference -->"
#: Where a page lists the subcommands in one line (``ulidkeys new | inspect | ...``).
COMMANDS = "<!-- cli-commands -->"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if COMMANDS in markdown:
        markdown = markdown.replace(COMMANDS, command_line(build_parser()))
    if MARK not in markdown:
        return markdown
    return markdown.replace(MARK, render(build_parser()))


def command_names(parser: argparse.ArgumentParser) -> list[str]:
    """The subcommands, in ``--help`` order."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(commands.choices)


def command_line(parser: argparse.ArgumentParser) -> str:
    """``ulidkeys new | inspect | ...``, as inline code."""
    return f"`{parser.prog} {' | '.join(command_names(parser))}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _option(action: argparse.Action) -> str:
    names = ", ".join(f"`{name}`" for name in action.option_strings) or f"`{action.dest}`"
    if action.metavar:
        names += f" `{action.metavar}`"
    elif action.choices and not action.option_strings:
        names = f"`{action.dest}`"
    return names


def _details(action: argparse.Action) -> str:
    parts = [action.help or ""]
    if action.choices:
        parts.append("one of " + ", ".join(f"`{choice}`" for choice in action.choices))
    if action.default not in (None, False, argparse.SUPPRESS, []) and action.option_strings:
        parts.append(f"default `{action.default}`")
    return _cell("; ".join(part for part in parts if part))


def render(parser: argparse.ArgumentParser) -> str:
    """Markdown for every subcommand: its purpose, usage and options."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = [
        f"`{parser.prog}` {parser.description}",
        "",
        "| command | what it does |",
        "| --- | --- |",
        *(
            f"| [`{name}`](#{name}) | {_cell(sub.description or '')} |"
            for name, sub in commands.choices.items()
        ),
        "",
    ]
    for name, sub in commands.choices.items():
        lines += [
            f"## {name}",
            "",
            _cell(sub.description or ""),
            "",
            "```text",
            sub.format_usage().strip(),
            "```",
            "",
            "| option | meaning |",
            "| --- | --- |",
        ]
        lines += [
            f"| {_option(action)} | {_details(action)} |"
            for action in sub._actions
            if not isinstance(action, argparse._HelpAction)
        ]
        lines.append("")
    return "\n".join(lines)
