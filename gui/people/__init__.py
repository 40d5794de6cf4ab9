"""A team server's sign-in, outside the core: passwords hashed with argon2 (`Argon2Hasher`) and the
company's OpenID Connect sign-in (`OidcSignIn`, authlib). The accounts themselves are the core's
(`gui.core.people.Accounts`)."""

from gui.people.hashing import Argon2Hasher
from gui.people.oidc import OidcConfig, OidcFailed, OidcSignIn

__all__ = ["Argon2Hasher", "OidcConfig", "OidcSignIn", "OidcFailed"]
