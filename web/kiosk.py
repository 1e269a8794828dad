"""The kiosk pages: home (resume or start a game) and one page per running game."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template

from companion.games import GAMES
from companion.table import Table, UnknownSession

bp = Blueprint("kiosk", __name__)

TEMPLATES = {"diego-drachenzahn": "diego.html"}


def _table() -> Table:
    return current_app.extensions["table"]


@bp.get("/")
def home():
    sessions = _table().sessions(limit=30)
    return render_template(
        "home.html",
        games=[g.to_json() for g in GAMES.values()],
        players=_table().log.players(),
        running=[s for s in sessions if not s["finished"]],
        finished=[s for s in sessions if s["finished"]][:8],
    )


@bp.get("/play/<int:session_id>")
def play(session_id: int):
    try:
        view = _table().view(session_id)
    except UnknownSession:
        abort(404, description=f"There is no game number {session_id}.")
    template = TEMPLATES.get(view["game"])
    if template is None:
        abort(404, description=f"{view['game_name']} has no page yet.")
    return render_template(template, session=view)


@bp.app_context_processor
def _globals() -> dict:
    sensors = current_app.extensions["sensors"]
    return {"mode": sensors.mode}
