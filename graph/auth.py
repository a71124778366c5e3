"""Who calls the LangGraph server, and what each caller may claim and read.

`langgraph.json` names ``auth`` here (LangGraph's custom auth, ``langgraph_sdk.Auth``). Every
request is authenticated from its ``Authorization: Bearer …`` header against the credentials in
the settings: a token file (``AUTH_TOKENS_FILE``: token → user, tenant, groups) and JWTs signed
with a shared secret (``AUTH_JWT_SECRET``, HS256) or a key pair (``AUTH_JWT_PUBLIC_KEY``, RS256 or
ES256; claims ``sub``, ``tenant``, ``groups``). With none configured, the server serves one local
user (``local``, holding ``AUTH_LOCAL_GROUPS``) and says so when it starts.

A run's user, tenant and access groups are the authenticated caller's: the server writes them
into the run's context, and a run, configurable or assistant that claims another user, tenant or
a group the caller does not hold is refused with 403. Threads carry their owner and the owner's
groups in their metadata, and only that owner holding those groups reads, searches, updates,
deletes or runs them; the store's items live under their owner's namespace.
"""

from __future__ import annotations

import functools
import hmac
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from langgraph_sdk import Auth

from components.settings import Settings, get_settings

log = logging.getLogger(__name__)

LOCAL_USER = "local"
REVIEWER = "reviewer"
"""The role that may list every feedback record (``GET /feedback``)."""


@dataclass(frozen=True)
class Caller:
    user_id: str
    tenant: str = ""
    groups: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()


def _names(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str):
        raw = raw.split(",")
    if not isinstance(raw, Sequence):
        return ()
    return tuple(sorted({str(g).strip() for g in raw if str(g).strip()}))


class Credentials:
    """The credentials the server accepts, read once from the settings."""

    def __init__(self, settings: Settings) -> None:
        self.tokens: dict[str, Caller] = {}
        if settings.auth_tokens_file is not None:
            self.tokens = read_token_file(settings.auth_tokens_file)
        self.jwt_keys: list[tuple[Any, list[str]]] = []
        if settings.auth_jwt_secret is not None:
            self.jwt_keys.append((settings.auth_jwt_secret.get_secret_value(), ["HS256"]))
        if settings.auth_jwt_public_key is not None:
            pem = settings.auth_jwt_public_key.read_text(encoding="utf-8")
            self.jwt_keys.append((pem, ["RS256", "ES256"]))
        self.audience = settings.auth_jwt_audience or None
        self.issuer = settings.auth_jwt_issuer or None
        # the machine's own user reviews its own feedback
        self.local = Caller(LOCAL_USER, groups=_names(settings.auth_local_groups), roles=(REVIEWER,))

    @property
    def configured(self) -> bool:
        return bool(self.tokens or self.jwt_keys)

    def identify(self, authorization: str | None) -> Caller:
        """The caller a request's Authorization header names; raises 401 when it names none."""
        if not self.configured:
            return self.local
        scheme, _, token = (authorization or "").strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise _refused(401, "Send 'Authorization: Bearer <token>': this server accepts API tokens or JWTs.")
        for known, caller in self.tokens.items():  # each compared in constant time
            if hmac.compare_digest(known.encode(), token.encode()):
                return caller
        for key, algorithms in self.jwt_keys:
            try:
                claims = jwt.decode(
                    token,
                    key,
                    algorithms=algorithms,
                    audience=self.audience,
                    issuer=self.issuer,
                    options={"require": ["sub", "exp"], "verify_aud": self.audience is not None},
                )
            except jwt.ExpiredSignatureError:
                raise _refused(401, "The token has expired: ask for a new one.") from None
            except jwt.PyJWTError:
                continue
            tenant = str(claims.get("tenant") or "")
            return Caller(str(claims["sub"]), tenant, _names(claims.get("groups")), _names(claims.get("roles")))
        raise _refused(401, "The token is not one this server accepts.")


def read_token_file(path: Path) -> dict[str, Caller]:
    """``{"TOKEN": {"user": …, "tenant": …, "groups": […]}}``; a clear error for anything else."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"AUTH_TOKENS_FILE {path}: cannot read it as JSON ({e})") from None
    if not isinstance(raw, Mapping):
        raise ValueError(f'AUTH_TOKENS_FILE {path}: expected {{"TOKEN": {{"user": "...", "groups": [...]}}}}')
    out: dict[str, Caller] = {}
    for token, who in raw.items():
        if not isinstance(who, Mapping) or not str(who.get("user") or "").strip():
            raise ValueError(f"AUTH_TOKENS_FILE {path}: the entry of a token has no 'user'")
        if len(token) < 16:
            raise ValueError(f"AUTH_TOKENS_FILE {path}: the token of {who['user']!r} is shorter than 16 characters")
        user, tenant = str(who["user"]), str(who.get("tenant") or "")
        out[token] = Caller(user, tenant, _names(who.get("groups")), _names(who.get("roles")))
    return out


def _refused(status: int, detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=status, detail=detail)


@functools.cache
def credentials() -> Credentials:
    settings = get_settings()
    found = Credentials(settings)
    if found.configured:
        return found
    if settings.auth_required:
        raise RuntimeError(
            "AUTH_REQUIRED is set and no credential is configured: set AUTH_TOKENS_FILE, AUTH_JWT_SECRET or "
            "AUTH_JWT_PUBLIC_KEY (docs/access-scopes.md, 'Issue a credential')."
        )
    log.warning(
        "No credential configured (AUTH_TOKENS_FILE, AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY): serving one local "
        "user, %r, with access groups %s (AUTH_LOCAL_GROUPS). Configure a credential before anyone else can "
        "reach this server.",
        found.local.user_id,
        list(found.local.groups),
    )
    return found


def caller_from_user(user: Any) -> Caller:
    """The caller of a request the server authenticated (langgraph_api's ``ProxyUser`` of the
    dict ``authenticate`` returned)."""
    return Caller(
        str(user.identity),
        str(user.get("tenant") or ""),
        tuple(user.get("access_groups") or ()),
        tuple(user.get("permissions") or ()),
    )


def claims_within(caller: Caller, claimed: Mapping[str, Any] | None, where: str) -> None:
    """403 when ``claimed`` (a context or configurable) names another user or tenant, or a group
    the caller does not hold; what it leaves out, the credential fills in."""
    if not claimed:
        return
    user, tenant = claimed.get("user_id"), claimed.get("tenant")
    if user not in (None, "", caller.user_id):
        raise _refused(403, f"{where} names user_id {user!r}; this credential is {caller.user_id!r}.")
    if tenant not in (None, "", caller.tenant):
        raise _refused(403, f"{where} names tenant {tenant!r}; this credential's tenant is {caller.tenant!r}.")
    extra = sorted(set(_names(claimed.get("access_groups") or ())) - set(caller.groups))
    if extra:
        held = list(caller.groups)
        raise _refused(403, f"{where} names access groups {extra} this credential does not hold (it holds {held}).")


def as_context(caller: Caller) -> dict[str, Any]:
    """The Context fields (graph.context.Context) the credential decides."""
    return {"user_id": caller.user_id, "tenant": caller.tenant, "access_groups": list(caller.groups)}


auth = Auth()


@auth.authenticate
async def authenticate(authorization: str | None) -> Auth.types.MinimalUserDict:
    caller = credentials().identify(authorization)
    return {
        "identity": caller.user_id,
        "is_authenticated": True,
        "permissions": list(caller.roles),
        "tenant": caller.tenant,  # type: ignore[typeddict-unknown-key]
        "access_groups": list(caller.groups),  # type: ignore[typeddict-unknown-key]
    }


def thread_scope(caller: Caller) -> dict[str, str]:
    """The metadata that places a thread: its owner, and the access groups the owner held when
    starting it. Threads are read, listed and continued under exactly that scope: a thread may hold
    turns that only those groups could see, so a credential that has since lost one (or gained
    one: the scope is compared as a whole) sees it again only when it holds those groups again."""
    return {"owner": caller.user_id, "scope": ",".join(caller.groups)}


@auth.on.threads.create
async def own_new_thread(ctx: Auth.types.AuthContext, value: Any) -> None:
    value.setdefault("metadata", {}).update(thread_scope(caller_from_user(ctx.user)))


async def only_own_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    return thread_scope(caller_from_user(ctx.user))


auth.on.threads.read(only_own_threads)
auth.on.threads.search(only_own_threads)
auth.on.threads.update(only_own_threads)
auth.on.threads.delete(only_own_threads)


@auth.on.threads.create_run
async def run_as_the_caller(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """The run's identity is the credential's; a thread it creates is the caller's, and it may
    only run on the caller's own threads (the returned filter)."""
    caller = caller_from_user(ctx.user)
    kwargs = value.setdefault("kwargs", {})
    context = dict(kwargs.get("context") or {})
    config = dict(kwargs.get("config") or {})
    configurable = dict(config.get("configurable") or {})
    claims_within(caller, context, "The run's context")
    claims_within(caller, configurable, "The run's config.configurable")
    identity = as_context(caller)
    kwargs["context"] = {**context, **identity}
    config["configurable"] = {k: v for k, v in configurable.items() if k not in identity}
    kwargs["config"] = config
    metadata = value.get("metadata")
    if metadata is None:
        metadata = value["metadata"] = {}
    place = thread_scope(caller)
    metadata.update(place)
    return place


async def assistant_defaults_within(ctx: Auth.types.AuthContext, value: Any) -> None:
    caller = caller_from_user(ctx.user)
    claims_within(caller, value.get("context"), "The assistant's context")
    claims_within(caller, (value.get("config") or {}).get("configurable"), "The assistant's config.configurable")
    value.setdefault("metadata", {})["owner"] = caller.user_id


auth.on.assistants.create(assistant_defaults_within)
auth.on.assistants.update(assistant_defaults_within)


@auth.on.store
async def own_namespace(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Every store item lives under its owner's namespace (profiles are per user)."""
    namespace = tuple(value.get("namespace") or ())
    if not namespace or namespace[0] != ctx.user.identity:
        value["namespace"] = (ctx.user.identity, *namespace)


credentials()  # when the server loads this module: refuse to start, or say whom it serves
