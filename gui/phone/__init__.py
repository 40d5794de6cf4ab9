"""Using SeqDesk from a phone on the same network: a second listener on the computer's network
address, one-time pairing codes (shown as a QR code), and the paired phones' sessions.

`PhoneAccess` (access.py) is the one object the app keeps: it turns the listener on and off,
makes pairing codes, pairs a phone (a session cookie), recognises it on each request, and forgets
it. The gate in front of the app (`gui.api.pairing`) asks it about every request from the network.
"""

from gui.phone.access import PhoneAccess
from gui.phone.devices import PairedPhone

__all__ = ["PairedPhone", "PhoneAccess"]
