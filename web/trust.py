"""Who may write: every request passes these checks, in one place.

- Host must be one of the Pi's own names or addresses (DNS rebinding): else 421.
- The kiosk is the Pi's own screen: a request whose socket peer (REMOTE_ADDR, never a header) is in
  KIOSK_PEERS. Other devices are spectators until paired; a paired device holds a random token in an
  HttpOnly, SameSite=Strict cookie.
- A write (any method but GET, HEAD, OPTIONS) must be same-origin (Origin, when sent, is this host;
  Sec-Fetch-Site, when sent, is same-origin) and JSON (Content-Type application/json, or no body and
  no Content-Type at all): a cross-site form post changes nothing. Then it is rate-limited per device
  (429), and needs the kiosk or a pairing (403 that says how to pair).
- Camera pictures and the kept photos (under /camera/) need the kiosk or a pairing, and a same-origin request
  (the kiosk is a socket peer, whatever page its browser shows); other reads are open unless SPECTATORS is false.
- Security headers on every response.
"""
from __future__ import annotations

import contextlib
import ipaddress
import socket
import struct
import threading
import time
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any, Callable, Iterable, TypeVar
from urllib.parse import urlencode

from flask import Flask, Response, current_app, g, redirect, request
from flask.typing import ResponseReturnValue

from .errors import error_response
from .pairing_store import DeviceStore

DEFAULTS: dict[str, Any] = {
    "KIOSK_PEERS": ["127.0.0.0/8", "::1"],  # socket peers that are the Pi's own screen
    "SPECTATORS": True,                     # unpaired devices may watch (reads and live streams)
    "ALLOWED_HOSTS": [],                    # Host names accepted besides the Pi's own names and addresses
    "WRITE_RATE": 20.0,                     # writes per second per device, sustained ...
    "WRITE_BURST": 40,                      # ... and in a burst
    "KIOSK_RATE_LIMITED": False,            # whether the kiosk's own writes are rate-limited too
}

DEVICE_COOKIE = "companion_device"
CLAIM_COOKIE = "companion_pairing"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
HOSTS_REFRESH_S = 10.0

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
       "img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}

HOW_TO_PAIR = ("This device can watch but not change anything: to pair it, tap \u201cPair this tablet\u201d (or open "
               "/devices) and approve the code shown on the table's own screen.")

View = TypeVar("View", bound=Callable[..., Any])


def open_to_all(view: View) -> View:
    """Mark a view that any device may call, paired or not (asking to pair). Same-origin JSON still applies."""
    view.trust_open = True  # type: ignore[attr-defined]
    return view


def kiosk_only(view: View) -> View:
    """Mark a view that only the Pi's own screen may call (approving, refusing, revoking)."""
    view.trust_kiosk_only = True  # type: ignore[attr-defined]
    return view


@dataclass(frozen=True)
class Client:
    """Who is asking: the kiosk, a paired device, or a spectator."""
    address: str
    kiosk: bool
    device: Any  # pairing_store.Device | None

    @property
    def role(self) -> str:
        return "kiosk" if self.kiosk else "paired" if self.device is not None else "spectator"

    @property
    def trusted(self) -> bool:
        return self.kiosk or self.device is not None


def client() -> Client:
    """The current request's client (identified once per request)."""
    found = g.get("trust_client")
    if found is None:
        trust: Trust = current_app.extensions["trust"]
        found = g.trust_client = trust.identify()
    return found


def store() -> DeviceStore:
    return current_app.extensions["trust"].store


class TokenBuckets:
    """A token bucket per key: `rate` tokens a second, at most `burst` saved up."""

    MAX_KEYS = 4096

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = float(rate), float(burst)
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str, now: float | None = None) -> float:
        """0 if a token was taken, else the seconds until one is due."""
        now = time.monotonic() if now is None else now
        with self._lock:
            tokens, last = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens >= 1:
                self._buckets[key] = (tokens - 1, now)
                if len(self._buckets) > self.MAX_KEYS:
                    self._forget_full(now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate

    def _forget_full(self, now: float) -> None:
        for key, (tokens, last) in list(self._buckets.items()):
            if tokens + (now - last) * self.rate >= self.burst:
                del self._buckets[key]


class OwnHosts:
    """The Pi's own names and addresses, read at startup and again (at most every 10 s) on a miss,
    since the Wi-Fi address often arrives after the companion has started."""

    def __init__(self, extra: Iterable[str]) -> None:
        self.extra = {_normal_host(h) for h in extra}
        self._lock = threading.Lock()
        self._read_at = 0.0
        self.names: set[str] = set()
        self.refresh()

    def refresh(self) -> None:
        hostname = socket.gethostname().lower()
        names = {"localhost", "127.0.0.1", "::1", hostname, f"{hostname}.local"}
        names.update(str(a) for a in interface_addresses())
        with self._lock:
            self.names, self._read_at = names | self.extra, time.monotonic()

    def allows(self, host: str) -> bool:
        name = _normal_host(host)
        if not name:
            return False
        if name in self.names or _is_loopback(name):
            return True
        if time.monotonic() - self._read_at >= HOSTS_REFRESH_S:
            self.refresh()
            return name in self.names
        return False


class Trust:
    """The app's trust settings and state: kiosk peers, device store, rate limits, own hosts."""

    def __init__(self, app: Flask, device_store: DeviceStore) -> None:
        self.store = device_store
        self.kiosk_peers = [ipaddress.ip_network(p, strict=False) for p in app.config["KIOSK_PEERS"]]
        own = _ip(str(app.config.get("LISTEN_HOST") or ""))
        if own is not None and not own.is_unspecified:  # one address of the Pi's: its kiosk opens that address,
            self.kiosk_peers.append(ipaddress.ip_network(own))  # and a peer with it is this machine itself
        self.spectators = bool(app.config["SPECTATORS"])
        self.hosts = OwnHosts(app.config["ALLOWED_HOSTS"])
        self.buckets = TokenBuckets(app.config["WRITE_RATE"], app.config["WRITE_BURST"])
        self.kiosk_rate_limited = bool(app.config["KIOSK_RATE_LIMITED"])

    def is_kiosk(self, address: str | None) -> bool:
        ip = _ip(address)
        return ip is not None and any(ip.version == net.version and ip in net for net in self.kiosk_peers)

    def identify(self) -> Client:
        address = request.remote_addr or ""  # set by the server from the socket: never from a header
        device = self.store.device(request.cookies.get(DEVICE_COOKIE), address)
        return Client(address, self.is_kiosk(address), device)


def stream_access(app: Flask, host: str, address: str, cookie_header: str
                  ) -> tuple[tuple[int, str, str] | None, int | None]:
    """The same checks for a live stream, which the server serves outside Flask: (refusal, device), the refusal
    (status, code, message) when the stream is refused, else None, and the id of the paired device that opens it
    (None for the kiosk and a device that watches only). A foreign Host is refused; with SPECTATORS off, so is an
    unpaired device."""
    trust: Trust | None = app.extensions.get("trust")
    if trust is None:
        return None, None
    if not trust.hosts.allows(host):
        return (421, "wrong_host", f"{host!r} is not this companion's address"), None
    if trust.is_kiosk(address):
        return None, None
    cookies = SimpleCookie()
    with contextlib.suppress(CookieError):
        cookies.load(cookie_header)
    device = trust.store.device(cookies[DEVICE_COOKIE].value if DEVICE_COOKIE in cookies else None, address)
    if device is None and not trust.spectators:
        return (403, "pairing_required", "this companion shows its games to paired devices only; "
                                         "pair on the Devices page"), None
    return None, device.id if device is not None else None


def init_app(app: Flask) -> None:
    """Register the checks and the security headers; open the device store beside the session log."""
    for key, value in DEFAULTS.items():
        app.config.setdefault(key, value)
    log = app.extensions["table"].log
    app.extensions["trust"] = Trust(app, DeviceStore(getattr(log, "path", ":memory:")))
    app.before_request(_check)
    app.after_request(_headers)


def close(app: Flask) -> None:
    """Close the device store (on shutdown)."""
    trust = app.extensions.get("trust")
    if trust is not None:
        trust.store.close()


def _check() -> ResponseReturnValue | None:
    trust: Trust = current_app.extensions["trust"]
    if not trust.hosts.allows(request.host):
        return error_response(421, "wrong_host", f"this companion does not answer to the name "
                                                 f"'{request.host[:80]}'; open it by its own name or address")
    view = current_app.view_functions.get(request.endpoint or "")
    who = client()
    if request.method not in SAFE_METHODS:
        return _check_write(trust, who, view)
    if getattr(view, "trust_kiosk_only", False) and not who.kiosk:
        return error_response(403, "kiosk_only", "only the table's own screen may see this")
    if request.path.startswith("/camera/") and _from_another_site():
        return error_response(403, "cross_origin", "the camera's pictures and the kept photos are shown only on "
                                                   "this companion's own pages")
    if request.path.startswith("/camera/") and not who.trusted:
        return error_response(403, "pairing_required", "the camera picture is shown only on the table's "
                                                       "screen and on paired tablets. " + HOW_TO_PAIR)
    if not trust.spectators and not who.trusted and not _open_read(view):
        if request.path.startswith("/api/"):
            return error_response(403, "pairing_required", "this companion shows the games only to paired "
                                                           "devices. " + HOW_TO_PAIR)
        return redirect("/devices?" + urlencode({"next": request.full_path.rstrip("?")}))  # back there once paired
    return None


def _check_write(trust: Trust, who: Client, view: Any) -> tuple[Response, int] | None:
    refusal = _cross_site_refusal()
    if refusal is not None:
        return refusal
    if trust.kiosk_rate_limited or not who.kiosk:
        key = f"device:{who.device.id}" if who.device is not None else f"address:{who.address}"
        wait = trust.buckets.take(key)
        if wait:
            response, status = error_response(429, "too_many_writes", "too many changes at once from this "
                                                                      "device; wait a moment and try again")
            response.headers["Retry-After"] = str(max(1, round(wait + 0.5)))
            return response, status
    if getattr(view, "trust_kiosk_only", False):
        if who.kiosk:
            return None
        return error_response(403, "kiosk_only", "only the table's own screen may do this")
    if who.trusted or getattr(view, "trust_open", False):
        return None
    return error_response(403, "pairing_required", HOW_TO_PAIR,
                          pairing={"page": "/devices", "request": "/api/pairing/requests"})


def _from_another_site() -> bool:
    """Whether the request comes from another site's page: its Origin or Sec-Fetch-Site, when sent, says so."""
    origin = request.headers.get("Origin")
    if origin is not None and origin.lower() != f"{request.scheme}://{request.host}".lower():
        return True
    fetch_site = request.headers.get("Sec-Fetch-Site")
    return fetch_site is not None and fetch_site not in ("same-origin", "none")


def _cross_site_refusal() -> tuple[Response, int] | None:
    """A refusal for a write that is not a same-origin JSON request, else None."""
    if _from_another_site():
        return error_response(403, "cross_origin", "changes are accepted only from this companion's own pages")
    has_body = bool(request.content_length) or "chunked" in request.headers.get("Transfer-Encoding", "").lower()
    if request.mimetype != "application/json" and (has_body or "Content-Type" in request.headers):
        return error_response(415, "json_required", "changes must be sent as JSON (Content-Type: application/json)")
    return None


def _open_read(view: Any) -> bool:
    """Reads that stay open when SPECTATORS is false: static files and what a device needs to pair."""
    return request.endpoint == "static" or getattr(view, "trust_open", False)


def _headers(response: Response) -> Response:
    honoured = _trustworthy_origin()  # elsewhere a browser ignores the opener policy, saying so on every page
    for name, value in SECURITY_HEADERS.items():
        if honoured or name != "Cross-Origin-Opener-Policy":
            response.headers.setdefault(name, value)
    return response


def _trustworthy_origin() -> bool:
    """Whether the page's origin is one a browser honours Cross-Origin-Opener-Policy for: https, or this machine's
    own name or address (a tablet opens the companion by its LAN address over plain http)."""
    if request.is_secure:
        return True
    host = _normal_host(request.host)
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _normal_host(host: str) -> str:
    """A Host header's name without port or brackets, lower case, no trailing dot."""
    host = host.strip().lower()
    if host.startswith("["):
        host = host[1:host.find("]")] if "]" in host else ""
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def _ip(address: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address((address or "").split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _is_loopback(name: str) -> bool:
    ip = _ip(name)
    return ip is not None and ip.is_loopback


def interface_addresses() -> set[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The machine's own IPv4 and IPv6 addresses (Linux: an ioctl per interface, /proc/net/if_inet6);
    elsewhere whatever the hostname resolves to."""
    found: set[ipaddress.IPv4Address | ipaddress.IPv6Address] = set()
    try:
        import fcntl  # Unix only

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            for _, name in socket.if_nameindex():
                try:
                    packed = fcntl.ioctl(probe.fileno(), 0x8915,  # SIOCGIFADDR
                                         struct.pack("256s", name.encode()[:15]))
                except OSError:
                    continue  # an interface without an IPv4 address
                found.add(ipaddress.IPv4Address(packed[20:24]))
    except (OSError, AttributeError, ImportError):
        pass
    try:
        with open("/proc/net/if_inet6") as table:
            for line in table:
                found.add(ipaddress.IPv6Address(bytes.fromhex(line.split()[0])))
    except (OSError, ValueError, IndexError):
        pass
    try:
        for *_, sockaddr in socket.getaddrinfo(socket.gethostname(), None):
            ip = _ip(str(sockaddr[0]))
            if ip is not None:
                found.add(ip)
    except OSError:
        pass
    return found


def lan_address() -> str | None:
    """An address other devices can reach the Pi at (the first private, non-loopback IPv4), if any."""
    candidates = sorted((ip for ip in interface_addresses() if ip.version == 4 and not ip.is_loopback
                         and not ip.is_link_local), key=lambda ip: (not ip.is_private, int(ip)))
    return str(candidates[0]) if candidates else None
