"""The kiosk pages: home (carry on, or start a game) and one page per game, found by the game's id.

A game's page is the template games/<game-id>.html (extending game.html) and its script
static/games/<game-id>.js; there is no list to keep: a game without a template has no page yet.
"""
from __future__ import annotations

import re
import time
from datetime import date, datetime
from typing import Any

from flask import Blueprint, abort, current_app, render_template, url_for
from jinja2 import TemplateNotFound

from companion.games import GAMES
from companion.table import Table, UnknownSession

from . import heroes

bp = Blueprint("kiosk", __name__)

GAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
RECENT_FINISHED = 8
CARRY_ON_SHOWN = 3
"""Unfinished games shown on Home as cards (a row at 800x480); the rest behind "N more unfinished games"."""


def _table() -> Table:
    return current_app.extensions["table"]


def plain_ago(then: float | None, now: float | None = None) -> str:
    """When something last happened, in plain words: "a moment ago", "5 minutes ago", "yesterday"."""
    if then is None:
        return "not yet"
    now = time.time() if now is None else now
    seconds = max(0.0, now - then)
    minutes = round(seconds / 60)
    if seconds < 45:
        return "a moment ago"
    if minutes < 2:
        return "a minute ago"
    if minutes < 50:
        return f"{minutes} minutes ago"
    days = (date.fromtimestamp(now) - date.fromtimestamp(then)).days
    if days == 0:
        hours = round(seconds / 3600)
        return "an hour ago" if hours <= 1 else f"{hours} hours ago"
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    return _on_day(then, now)


def _on_day(then: float, now: float) -> str:
    """The day of `then`, as a person says it: "on 3 December", with its year when not this one."""
    when = datetime.fromtimestamp(then)
    same_year = when.year == datetime.fromtimestamp(now).year
    return f"on {when.day} {when.strftime('%B')}" + ("" if same_year else f" {when.year}")


def _status(view: dict[str, Any]) -> str:
    return view.get("status") or ("finished" if view["finished"] else "running")


@bp.get("/")
def home() -> str:
    sessions = _table().sessions(limit=40)
    by_status: dict[str, list[dict[str, Any]]] = {}
    for view in sessions:
        by_status.setdefault(_status(view), []).append(view)
    return render_template(
        "home.html",
        games=[g.to_json() for g in GAMES.values()],
        players=_table().players(),
        running=by_status.get("running", []),
        set_aside=by_status.get("set_aside", []),
        finished=by_status.get("finished", [])[:RECENT_FINISHED],
        carry_on_shown=CARRY_ON_SHOWN,
        # options kept and edited elsewhere: the page, and what Home says of them
        option_pages={"draci-hrad": {"hero_cards": {"href": url_for("heroes.page"), "note": heroes.not_copied()}}},
        now=time.time(),
    )


@bp.get("/play/<int:session_id>")
def play(session_id: int) -> str:
    try:
        view = _table().view(session_id)
    except UnknownSession:
        abort(404, description=f"There is no game number {session_id}.")
    if not GAME_ID.match(view["game"]):
        abort(404, description=f"{view['game_name']} has no page.")
    template = f"games/{view['game']}.html"
    try:
        current_app.jinja_env.get_template(template)
    except TemplateNotFound:
        abort(404, description=f"{view['game_name']} has no page yet.")
    return render_template(template, session=view)


@bp.app_template_filter("ago")
def _ago(then: float | None) -> str:
    return plain_ago(then)


def plain_started(then: float, now: float | None = None) -> str:
    """When a game began, to tell two games of the same players apart: "17:05" today, else its day."""
    now = time.time() if now is None else now
    if date.fromtimestamp(then) == date.fromtimestamp(now):
        return f"{datetime.fromtimestamp(then):%H:%M}"
    return _on_day(then, now)


@bp.app_template_filter("started")
def _started(then: float) -> str:
    return plain_started(then)


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    sensors = current_app.extensions["sensors"]
    return {"mode": sensors.mode}
