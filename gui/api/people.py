"""People routes of a team server: the admins' list of people (add or invite, roles, remove) and each
person's own page (who am I, personal tokens, sign out everywhere).

`POST /api/people` takes `{"name", "roles": [...], "password"?}`: without a password the answer
carries the one-time invite link. `POST /api/me/tokens` takes `{"name": "laptop CLI"}` and answers
the new token's secret: the only time it is shown. Each route's role is in `gui.api.routes`.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import Response

from gui.api.auth import COOKIE
from gui.api.body import json_response, read_json
from gui.api.roles import person_of
from gui.api.scope import cookie_of, headers_of
from gui.api.shared import ApiContext, Context
from gui.core.errors import Invalid, NotSignedIn
from gui.core.people import Accounts, Person, PersonRecord, TokenRecord

PERSON_BODY = 'a JSON object like {"name": "li.wei", "roles": ["approver"]} (and "password", or an invite link is made)'
ROLES_BODY = 'a JSON object like {"roles": ["runner", "approver"]}'
TOKEN_BODY = 'a JSON object like {"name": "laptop CLI"}'


def _accounts(api: ApiContext) -> Accounts:
    assert api.people is not None  # these routes are there only on a team server
    return api.people()


def _me(request: Request) -> Person:
    person = person_of(request.scope)
    if person is None:
        raise NotSignedIn("sign in first")
    return person


def person_json(person: PersonRecord) -> dict[str, Any]:
    return {"name": person.name, "roles": sorted(person.roles), "password": person.password_hash is not None,
            "created_at": person.created_at}


def token_json(token: TokenRecord) -> dict[str, Any]:
    return {"token_id": token.token_id, "name": token.label, "created_at": token.created_at}


def invite_url(request: Request, code: str) -> str:
    return str(request.base_url).rstrip("/") + "/invite/" + code


def _fields(raw: Any, expect: str, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise Invalid(f"the body must be {expect}")
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise Invalid(f"the body has fields SeqDesk does not know ({', '.join(unknown)}): send {expect}")
    return raw


def _roles(raw: dict[str, Any], expect: str) -> list[str]:
    roles = raw.get("roles", [])
    if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
        raise Invalid(f"roles must be a list of role names: send {expect}")
    return roles


async def list_people(api: Context) -> Response:
    return json_response([person_json(p) for p in await _accounts(api).people()])


async def add_person(request: Request, api: Context) -> Response:
    raw = _fields(await read_json(request, expect=PERSON_BODY), PERSON_BODY, {"name", "roles", "password"})
    name, password = raw.get("name"), raw.get("password")
    if not isinstance(name, str) or (password is not None and not isinstance(password, str)):
        raise Invalid(f"name (and password, when given) must be text: send {PERSON_BODY}")
    code = await _accounts(api).add(name, _roles(raw, PERSON_BODY), password)
    return json_response({"name": name, "invite": invite_url(request, code) if code else None}, 201)


async def set_roles(name: str, request: Request, api: Context) -> Response:
    raw = _fields(await read_json(request, expect=ROLES_BODY), ROLES_BODY, {"roles"})
    return json_response(person_json(await _accounts(api).set_roles(name, _roles(raw, ROLES_BODY))))


async def invite_again(name: str, request: Request, api: Context) -> Response:
    return json_response({"name": name, "invite": invite_url(request, await _accounts(api).invite_again(name))})


async def remove_person(name: str, request: Request, api: Context) -> Response:
    if name == _me(request).name:
        raise Invalid("you cannot remove yourself: ask another admin")
    await _accounts(api).remove(name)
    return json_response({"removed": name})


async def me(request: Request) -> Response:
    person = _me(request)
    return json_response({"name": person.name, "roles": sorted(person.roles)})


async def my_tokens(request: Request, api: Context) -> Response:
    return json_response([token_json(t) for t in await _accounts(api).tokens(_me(request).name)])


async def make_token(request: Request, api: Context) -> Response:
    raw = _fields(await read_json(request, expect=TOKEN_BODY), TOKEN_BODY, {"name"})
    label = raw.get("name")
    if not isinstance(label, str):
        raise Invalid(f"name must be text: send {TOKEN_BODY}")
    secret = await _accounts(api).make_token(_me(request).name, label)
    return json_response({"name": label.strip(), "token": secret}, 201)


async def revoke_token(token_id: str, request: Request, api: Context) -> Response:
    await _accounts(api).revoke_token(_me(request).name, token_id)
    return json_response({"revoked": token_id})


async def sign_out_everywhere(request: Request, api: Context) -> Response:
    """End every session of the signed-in person (a token keeps working: revoke it to end it)."""
    person = _me(request)
    session_id = cookie_of(headers_of(request.scope), COOKIE)
    accounts = _accounts(api)
    if session_id:
        ended = await accounts.sign_out(session_id, everywhere=True)
    else:
        ended = await accounts.sign_out_all(person.name)
    return json_response({"ended": ended})
