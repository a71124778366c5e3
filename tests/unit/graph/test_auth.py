"""Credentials of the LangGraph server: tokens from a file, JWTs from a shared secret or a public
key, one local user when none is configured, and claims that cannot widen what a caller holds."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from langgraph_sdk.auth.exceptions import HTTPException

from components.settings import Settings
from graph import auth
from graph.auth import Caller, Credentials, claims_within

TOKEN = "tok-0123456789abcdef"


def settings(**kw: Any) -> Settings:
    return Settings(_env_file=None, **kw)  # type: ignore[call-arg]


def refused(creds: Credentials, header: str | None) -> HTTPException:
    with pytest.raises(HTTPException) as e:
        creds.identify(header)
    return e.value


def test_without_a_credential_one_local_user_is_served_and_the_start_up_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(auth, "get_settings", lambda: settings(auth_local_groups="hr, ops"))
    auth.credentials.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="graph.auth"):
            creds = auth.credentials()
        local = Caller("local", "", ("hr", "ops"), ("reviewer",))
        assert creds.identify(None) == creds.identify("Bearer anything") == local
        assert "No credential configured" in caplog.text and "'local'" in caplog.text
    finally:
        auth.credentials.cache_clear()


def test_tokens_come_from_the_file_and_anything_else_is_401(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    alice = {"user": "alice", "tenant": "acme", "groups": ["hr"], "roles": ["reviewer"]}
    path.write_text(json.dumps({TOKEN: alice}), encoding="utf-8")
    creds = Credentials(settings(auth_tokens_file=path))
    assert creds.identify(f"Bearer {TOKEN}") == Caller("alice", "acme", ("hr",), ("reviewer",))
    assert "Authorization: Bearer" in refused(creds, None).detail
    assert refused(creds, TOKEN).status_code == 401  # no scheme
    assert refused(creds, "Bearer tok-0123456789abcdeX").status_code == 401


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("not json", "cannot read it as JSON"),
        ('{"short": {"user": "a"}}', "shorter than 16"),
        ('{"x-0123456789abcdef": 1}', "no 'user'"),
    ],
)
def test_a_malformed_token_file_is_named_with_what_is_wrong(tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=says):
        Credentials(settings(auth_tokens_file=path))


def test_jwts_signed_with_the_secret_or_the_key_pair_name_the_caller(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = tmp_path / "public.pem"
    pem.write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    creds = Credentials(settings(auth_jwt_secret="s" * 32, auth_jwt_public_key=pem, auth_jwt_audience="rag"))
    claims = {"sub": "bob", "tenant": "acme", "groups": ["hr"], "aud": "rag", "exp": int(time.time()) + 60}
    assert creds.identify("Bearer " + jwt.encode(claims, "s" * 32, "HS256")) == Caller("bob", "acme", ("hr",))
    assert creds.identify("Bearer " + jwt.encode(claims, key, "ES256")).user_id == "bob"
    assert refused(creds, "Bearer " + jwt.encode({**claims, "aud": "other"}, "s" * 32, "HS256")).status_code == 401
    expired = refused(creds, "Bearer " + jwt.encode({**claims, "exp": int(time.time()) - 5}, "s" * 32, "HS256"))
    assert "expired" in expired.detail
    no_expiry = {k: v for k, v in claims.items() if k != "exp"}
    assert refused(creds, "Bearer " + jwt.encode(no_expiry, "s" * 32, "HS256")).status_code == 401


def test_claims_may_narrow_but_never_widen_what_the_credential_holds() -> None:
    alice = Caller("alice", "acme", ("hr",))
    claims_within(alice, {"user_id": "alice", "tenant": "acme", "access_groups": ["hr"]}, "ctx")
    claims_within(alice, {"access_groups": []}, "ctx")
    for claim, says in [
        ({"access_groups": ["hr", "board"]}, "access groups ['board']"),
        ({"user_id": "bob"}, "user_id 'bob'"),
        ({"tenant": "other"}, "tenant 'other'"),
    ]:
        with pytest.raises(HTTPException) as e:
            claims_within(alice, claim, "The run's context")
        assert e.value.status_code == 403 and says in e.value.detail
