"""`seqdesk people add|token|list|remove`: the people of a team's SeqDesk, for its first admin and for scripts.

`add NAME --role ROLE [--role …] [--password …]` adds a person (without a password it prints a
one-time invite link: SEQDESK_PUBLIC_URL, or `--url`, is the address it starts with; `--password -`
reads the password from standard input, which other users cannot see as they can see arguments);
`token NAME --name LABEL` prints a new personal token, once; `list` prints who is here and their
roles; `remove NAME` removes a person (their sessions end, their tokens are refused). Each works on
the team's database: `--store postgresql://…` or SEQDESK_STORE. Exit 0 done, 1 refused (no such
person, a name taken), 2 a bad option or no database. Imports only what the command it runs uses."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from gui.i18n import _

if TYPE_CHECKING:
    from gui.core.people import Accounts


def add_people_command(sub: Any) -> None:
    people = sub.add_parser("people", help=_("the people of a team's SeqDesk: add, make tokens, list, remove"))
    actions = people.add_subparsers(dest="people_action", required=True)
    store_help = _("the team's database, postgresql://… (or SEQDESK_STORE)")
    add = actions.add_parser("add", help=_("add a person with their roles (prints an invite link without --password)"))
    add.add_argument("name", help=_("their name: lower case letters, digits, '.', '_' or '-' (li.wei)"))
    add.add_argument("--role", action="append", default=[], metavar="ROLE",
                     help=_("admin, author, runner, approver, or a team's own (oncall); give it once per role"))
    add.add_argument("--password", default=None,
                     help=_("their password (at least 10 characters; '-' reads it from standard input)"))
    add.add_argument("--url", default=None, help=_("the address people open (or SEQDESK_PUBLIC_URL), for the link"))
    token = actions.add_parser("token", help=_("make a personal token for a person (printed once)"))
    token.add_argument("name", help=_("whose token"))
    token.add_argument("--name", dest="label", required=True, metavar="LABEL",
                       help=_("what the token is for (laptop CLI): recorded with each answer given with it"))
    listing = actions.add_parser("list", help=_("list the people and their roles"))
    remove = actions.add_parser("remove", help=_("remove a person: their sessions end and their tokens stop working"))
    remove.add_argument("name", help=_("whom to remove"))
    for action, func in ((add, cmd_people_add), (token, cmd_people_token), (listing, cmd_people_list),
                         (remove, cmd_people_remove)):
        action.add_argument("--store", dest="people_store", default=None, help=store_help)
        action.set_defaults(func=func)


def _run(args: argparse.Namespace, act: Callable[[Accounts], Awaitable[int]]) -> int:
    import asyncio

    from gui.app import team_accounts  # the composition root opens the store; the command never does
    from gui.core.errors import Invalid, SeqDeskError

    settings = args.settings
    if args.people_store:
        from gui.settings import load_settings

        settings = load_settings(store=args.people_store)

    async def go() -> int:
        async with team_accounts(settings) as accounts:
            return await act(accounts)

    try:
        return asyncio.run(go())
    except SeqDeskError as exc:
        print(f"seqdesk people: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, Invalid) or exc.status == 503 else 1


def cmd_people_add(args: argparse.Namespace) -> int:
    import os

    password = args.password
    if password == "-":
        password = sys.stdin.readline().rstrip("\r\n")
    if not args.role:
        print(_("seqdesk people add: give at least one --role (admin, author, runner, approver)"), file=sys.stderr)
        return 2
    base = (args.url or os.environ.get("SEQDESK_PUBLIC_URL") or "").strip().rstrip("/")

    async def act(accounts: Accounts) -> int:
        code = await accounts.add(args.name, args.role, password)
        roles = ", ".join(sorted(set(args.role)))
        if code is None:
            print(_("{name} was added ({roles}) and can sign in now.").format(name=args.name, roles=roles))
            return 0
        print(_("{name} was added ({roles}). Send them this link: it works once, for 7 days, and with it they "
                "choose their password:").format(name=args.name, roles=roles))
        print(f"{base}/invite/{code}")
        if not base:
            print(_("(put your SeqDesk's address in front of it, or set SEQDESK_PUBLIC_URL to print whole links)"),
                  file=sys.stderr)
        return 0

    return _run(args, act)


def cmd_people_token(args: argparse.Namespace) -> int:
    async def act(accounts: Accounts) -> int:
        secret = await accounts.make_token(args.name, args.label)
        print(_("A personal token for {name}, named {label!r}. It is shown only now: set SEQDESK_TOKEN to it for "
                "the CLI and seqdesk mcp.").format(name=args.name, label=args.label.strip()), file=sys.stderr)
        print(secret)
        return 0

    return _run(args, act)


def cmd_people_list(args: argparse.Namespace) -> int:
    async def act(accounts: Accounts) -> int:
        people = await accounts.people()
        if not people:
            print(_("nobody yet: add the first admin with seqdesk people add NAME --role admin"), file=sys.stderr)
        for person in people:
            roles = ", ".join(sorted(person.roles)) or "-"
            waiting = "" if person.password_hash is not None else "  " + _("(invited: no password yet)")
            print(f"{person.name}\t{roles}{waiting}")
        return 0

    return _run(args, act)


def cmd_people_remove(args: argparse.Namespace) -> int:
    async def act(accounts: Accounts) -> int:
        await accounts.remove(args.name)
        print(_("{name} was removed: their sessions ended and their tokens no longer work.").format(name=args.name))
        return 0

    return _run(args, act)
