"""What loads when: the rules import no web, vision or GPIO library; a kiosk without sensors no cv2, numpy or gpiozero.

Each check runs in a fresh interpreter, so that what this test process has imported does not count.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _loaded_after(code: str, names: tuple[str, ...], cwd: Path = ROOT) -> list[str]:
    """Run `code` in a fresh interpreter; which of the top-level modules `names` it has imported."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([n for n in {list(names)!r} if n in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_companion_imports_no_flask_cv2_numpy_or_gpiozero() -> None:
    code = ("import importlib, pkgutil, companion\n"
            "names = [m.name for m in pkgutil.walk_packages(companion.__path__, 'companion.')]\n"
            "assert len(names) >= 4, names\n"
            "for name in names: importlib.import_module(name)")
    assert _loaded_after(code, ("flask", "cv2", "numpy", "gpiozero")) == []


def test_a_kiosk_without_sensors_loads_no_cv2_numpy_or_gpiozero(tmp_path: Path) -> None:
    code = ("from web.app import create_app, shutdown\n"
            f"app = create_app({{'DATA_DIR': {str(tmp_path)!r}, 'SENSORS': 'off'}})\n"
            "assert app.test_client().get('/api/health').status_code == 200\n"
            "assert app.test_client().get('/camera').status_code == 200\n"
            "shutdown(app)")
    assert _loaded_after(code, ("cv2", "numpy", "gpiozero")) == []


def test_the_command_line_loads_no_cv2_numpy_or_gpiozero_before_they_are_needed() -> None:
    code = "from web.cli import build_parser\nbuild_parser().parse_args(['serve', '--sensors', 'off'])"
    assert _loaded_after(code, ("cv2", "numpy", "gpiozero")) == []


def test_the_simulated_castle_does_load_them(tmp_path: Path) -> None:
    """The probe sees an import when there is one: the camera does need cv2 and numpy."""
    code = ("from web.app import create_app, shutdown\n"
            f"app = create_app({{'DATA_DIR': {str(tmp_path)!r}, 'SENSORS': 'simulation', 'CAMERA': 'simulation'}})\n"
            "shutdown(app)")
    assert _loaded_after(code, ("cv2", "numpy", "gpiozero")) == ["cv2", "numpy", "gpiozero"]


def test_every_module_of_ours_imports_first_on_its_own() -> None:
    """`import web.kiosk` first, with nothing of ours loaded before it, met a circle (heroes, api, openapi, heroes) the
    app's own order of imports hid: each module is imported first, the others forgotten between."""
    code = ("import importlib, pkgutil, sys, companion, hardware, web\n"
            "names = [m.name for p in (companion, hardware, web)"
            " for m in pkgutil.walk_packages(p.__path__, p.__name__ + '.') if not m.name.endswith('__main__')]\n"
            "assert len(names) >= 60, names\n"
            "failed = []\n"
            "for name in names:\n"
            "    for ours in [n for n in sys.modules if n.split('.')[0] in ('companion', 'hardware', 'web')]:\n"
            "        del sys.modules[ours]\n"
            "    try: importlib.import_module(name)\n"
            "    except Exception as err: failed.append(f'{name}: {err!r}')\n"
            "assert failed == [], failed")
    _loaded_after(code, ())
