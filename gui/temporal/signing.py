"""Signed steps: a host's worker runs only what the app signed, never merely what its queue holds.

The app approves a step (or needs no approval for it), then signs with its Ed25519 private key
exactly what will run there (`signed_part`): the tool, its arguments as they will be called (a
command included), the host, the run, the step, the call (the run's workflow and the step's
activity in it, so a signed step cannot be sent again by another workflow), the approval request that allowed it (None
when the tool asks none), its time limit and retries, and an expiry (`SIGNED_FOR` after signing).
The worker holds only public keys (`--trust FILE` or SEQDESK_WORKER_TRUST) and refuses a step that
is unsigned, signed with a key it does not trust, altered after signing, meant for another host or
call, already run by another call, or expired (`StepTrust.refusal`). Whoever can write to the
Temporal namespace can put a step on a host's queue; without the private key, nothing of it runs.

A worker remembers the steps it took (`TakenSteps`), each with the workflow run that took it, until
their expiry: in a file of its state folder (`seqdesk worker --state`), so that a worker started
again still refuses a step that a closed workflow took to a new run of that workflow.

Keys are PEM files, as `openssl genpkey -algorithm ed25519 -out steps.key` and `openssl pkey -in
steps.key -pubout -out steps.pub` make them: the app reads the private one from SEQDESK_STEP_KEY;
each worker is given the public one (a trust file may hold several, one per app of the team).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from gui.atomic import atomic_write
from gui.core.errors import Invalid

STEP_KEY_ENV = "SEQDESK_STEP_KEY"  # the app's private key (a PEM file's path)
TRUST_ENV = "SEQDESK_WORKER_TRUST"  # a worker's trusted public keys (a PEM file's path)
SIGNED_FOR = 15 * 60.0  # a signed step starts on its host within this many seconds, or never
MAKE_KEYS = ("openssl genpkey -algorithm ed25519 -out steps.key && "
             "openssl pkey -in steps.key -pubout -out steps.pub")


class StepKeyError(Invalid):
    pass


class HostStep(Protocol):
    """What is signed: a step for a host (`gui.temporal.plans.HostStep`, a frozen dataclass)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def host(self) -> str: ...
    @property
    def step_id(self) -> str: ...
    @property
    def run_id(self) -> str: ...
    @property
    def call_id(self) -> str: ...
    @property
    def key_id(self) -> str: ...
    @property
    def expires(self) -> float: ...
    @property
    def signature(self) -> str: ...


Step = TypeVar("Step", bound=HostStep)


def key_id(public: Ed25519PublicKey) -> str:
    """A public key's short name: the start of the SHA-256 of its raw bytes."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def signed_part(step: HostStep) -> bytes:
    """What a signature covers: every field of the step but the signature, as canonical JSON."""
    fields = asdict(step)
    fields.pop("signature")
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode()


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise StepKeyError(f"the {what} {path} cannot be read: {exc.strerror or exc}") from None


class StepSigner:
    """The app's side: signs each step it sends to a host."""

    def __init__(self, private: Ed25519PrivateKey, *, clock: Callable[[], float] = time.time) -> None:
        self._private = private
        self.key_id = key_id(private.public_key())
        self._clock = clock

    @classmethod
    def load(cls, path: Path) -> StepSigner:
        """The signer of the PEM private key at `path`; StepKeyError saying what is wrong with it."""
        data = _read(path, "step signing key")
        try:
            private = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise StepKeyError(f"the step signing key {path} is not an unencrypted PEM private key ({exc}): "
                               f"make one with {MAKE_KEYS}") from None
        if not isinstance(private, Ed25519PrivateKey):
            raise StepKeyError(f"the step signing key {path} is not an Ed25519 key: make one with {MAKE_KEYS}")
        return cls(private)

    @classmethod
    def from_environment(cls) -> StepSigner | None:
        """The signer SEQDESK_STEP_KEY names; None when it names none (steps on hosts then fail, saying so)."""
        given = os.environ.get(STEP_KEY_ENV, "").strip()
        return cls.load(Path(given).expanduser()) if given else None

    def sign(self, step: Step) -> Step:
        """`step` with this key's name, an expiry and the signature over it all."""
        sealed = replace(step, key_id=self.key_id, expires=round(self._clock() + SIGNED_FOR, 3), signature="")
        signature = self._private.sign(signed_part(sealed))
        return replace(sealed, signature=base64.b64encode(signature).decode())


class TakenSteps:
    """The steps a worker took, until their expiry: each signature with the workflow run that took it.
    Kept in the file `path` (JSON, written whole by `atomic_write` before the step runs), so that a
    worker started again remembers them; in memory only when `path` is None."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._taken: dict[str, tuple[str, float]] = self._read() if path is not None else {}

    def _read(self) -> dict[str, tuple[str, float]]:
        assert self.path is not None
        try:
            data = json.loads(self.path.read_bytes())
            return {str(sig): (str(run), float(expires)) for sig, (run, expires) in data.items()}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            raise StepKeyError(
                f"the worker's memory of the steps it took, {self.path}, cannot be read ({exc}): a worker without it "
                f"could run a step again; move the file aside after {SIGNED_FOR / 60:g} minutes with no step "
                "(every step it names has expired by then)") from None

    def take(self, signature: str, run: str, expires: float, now: float) -> str:
        """The workflow run that took the step signed `signature` first: `run` itself when none had
        (then it is remembered, on disk before this returns; OSError when it cannot be)."""
        seen = self._taken.get(signature)
        if seen is not None and seen[1] >= now:
            return seen[0]
        self._taken = {sig: kept for sig, kept in self._taken.items() if kept[1] >= now}
        self._taken[signature] = (run, expires)
        if self.path is not None:
            atomic_write(self.path, json.dumps(self._taken, separators=(",", ":")).encode())
        return run


class StepTrust:
    """A worker's side: the public keys it trusts, and what it remembers of the steps it took."""

    def __init__(self, keys: list[Ed25519PublicKey], *, clock: Callable[[], float] = time.time,
                 taken: TakenSteps | None = None) -> None:
        self._keys = {key_id(key): key for key in keys}
        self._clock = clock
        self.taken = taken or TakenSteps()

    @property
    def key_ids(self) -> list[str]:
        return sorted(self._keys)

    @classmethod
    def load(cls, path: Path, taken: TakenSteps | None = None) -> StepTrust:
        """The public keys of the PEM file at `path` (one or more); StepKeyError saying what is wrong."""
        text = _read(path, "trust file").decode("ascii", errors="replace")
        if "PRIVATE KEY" in text:
            raise StepKeyError(f"the trust file {path} holds a private key: give a worker the public key only "
                               "(openssl pkey -in steps.key -pubout -out steps.pub); whoever holds the private "
                               "key can make any host run anything")
        keys: list[Ed25519PublicKey] = []
        end = "-----END PUBLIC KEY-----"
        for block in text.split(end)[:-1]:
            try:
                key = serialization.load_pem_public_key((block.strip() + "\n" + end + "\n").encode())
            except ValueError as exc:
                raise StepKeyError(f"the trust file {path} holds something that is not a PEM public key ({exc})") \
                    from None
            if not isinstance(key, Ed25519PublicKey):
                raise StepKeyError(f"the trust file {path} holds a key that is not Ed25519: make one with "
                                   f"{MAKE_KEYS}")
            keys.append(key)
        if not keys:
            raise StepKeyError(f"the trust file {path} holds no PEM public key: give the .pub of the app's step "
                               f"key (made with {MAKE_KEYS})")
        return cls(keys, taken=taken)

    def refusal(self, step: HostStep, host: str, call: str, run: str) -> str | None:
        """Why the host `host` must not run `step`, which the call `call` (`plans.call_of`: a workflow's
        activity; that workflow's run `run`) sent; None
        when it may: signed by a trusted key, unaltered, for this host and this call, not expired, and
        not taken by another run of a workflow before."""
        if not step.signature:
            return "it is not signed (a step reaches a host only from a SeqDesk app that signs it)"
        key = self._keys.get(step.key_id)
        if key is None:
            return (f"it is signed with a key this host does not trust ({step.key_id or 'unnamed'}; it trusts "
                    f"{', '.join(self.key_ids)})")
        try:
            key.verify(base64.b64decode(step.signature, validate=True), signed_part(step))
        except (InvalidSignature, ValueError):
            return "it was altered after it was signed (its signature does not match what it would run)"
        if step.host != host:
            return f"it was signed for the host {step.host}"
        if step.call_id != call:
            return f"it was signed for the call {step.call_id}, not {call} (a signed step sent again)"
        now = self._clock()
        if now > step.expires:
            when = datetime.fromtimestamp(step.expires, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
            return f"its signature expired at {when} (a step must start within {SIGNED_FOR / 60:g} minutes)"
        try:
            if self.taken.take(step.signature, run, step.expires, now) != run:
                return "it was already taken by another run of its call (a signed step sent again)"
        except OSError as exc:
            return (f"this host cannot note that it took it, in {self.taken.path} ({exc.strerror or exc}), so it could "
                    "not refuse it if it were sent again")
        return None


def refused_words(host: str, step: HostStep, why: str) -> str:
    """The sentence of a refused step, as its record and the worker's output say it."""
    return f"the host {host} refused the step {step.step_id or '(unnamed)'} of run {step.run_id or '(none)'}: {why}"


def trust_from(given: str | None, taken: TakenSteps | None = None) -> StepTrust:
    """A worker's trust: the file `--trust` names, else SEQDESK_WORKER_TRUST; StepKeyError when there is none."""
    path = (given or os.environ.get(TRUST_ENV, "")).strip()
    if not path:
        raise StepKeyError("a worker runs only steps signed by the team's app: give it the app's public step key "
                           f"(--trust steps.pub, or {TRUST_ENV}); make the pair with {MAKE_KEYS} and give the app "
                           f"the private one ({STEP_KEY_ENV}=steps.key)")
    return StepTrust.load(Path(path).expanduser(), taken)


def no_signer_words(host: str) -> str:
    return (f"this app signs no steps, so the host {host} would refuse this one: give the app its step key "
            f"({STEP_KEY_ENV}=steps.key; make the pair with {MAKE_KEYS}) and the worker its public key "
            "(seqdesk worker --trust steps.pub)")

