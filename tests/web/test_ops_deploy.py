"""The deployment examples of docs/deploy.md, checked by the tools that read them:
`systemd-analyze verify` for the unit, `nginx -t` for the proxy (CI installs both)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from web_helpers import unavailable

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"


def block(language: str, containing: str) -> str:
    """The fenced block of docs/deploy.md in `language` that contains `containing`."""
    blocks = re.findall(rf"```{language}\n(.*?)```", DEPLOY.read_text(), re.S)
    found = [b for b in blocks if containing in b]
    assert len(found) == 1, f"one {language} block with {containing!r} in docs/deploy.md"
    return found[0]


def tool(name: str) -> str:
    found = shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if Path(p).exists()), None)
    if found is None:
        unavailable(f"there is no {name} here to check the deployment examples", f"install Debian's {name} (see .ci/run)")
    return found


def test_the_systemd_unit_verifies(tmp_path: Path) -> None:
    analyze = tool("systemd-analyze")
    unit = block("ini", "[Service]")
    assert "KillSignal=SIGTERM" in unit and "--log-format json" in unit
    # The unit's program is where a deployment installs it; here, the one under test.
    cantstop = Path(sys.executable).with_name("cantstop")
    unit = unit.replace("/opt/cantstop/.venv/bin/cantstop", str(cantstop))
    path = tmp_path / "cantstop.service"
    path.write_text(unit)
    result = subprocess.run([analyze, "verify", str(path)], capture_output=True, text=True, timeout=120)
    problems = [line for line in (result.stdout + result.stderr).splitlines() if "cantstop.service" in line]
    assert result.returncode == 0 and not problems, result.stdout + result.stderr


def test_the_nginx_site_passes_nginx_t(tmp_path: Path) -> None:
    nginx = tool("nginx")
    openssl = tool("openssl")
    site = block("nginx", "proxy_pass")
    assert "X-Request-ID $request_id" in site and 'Connection "upgrade"' in site
    # A certificate of the test's own in place of the site's.
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=cantstop.example.org",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=120)
    site = site.replace("/etc/letsencrypt/live/cantstop.example.org/fullchain.pem", str(cert))
    site = site.replace("/etc/letsencrypt/live/cantstop.example.org/privkey.pem", str(key))
    temp = tmp_path / "temp"
    temp.mkdir()
    paths = " ".join(f"{kind}_temp_path {temp / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    conf = tmp_path / "nginx.conf"
    conf.write_text(f"pid {tmp_path / 'nginx.pid'};\nerror_log stderr;\nevents {{}}\nhttp {{\n{paths}\naccess_log off;\n{site}\n}}\n")
    result = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "test is successful" in result.stderr, result.stderr
