"""``lastword serve``: the web app (pages and JSON API) on the same Pipeline as the CLI."""

from lastword.web.app import create_app
from lastword.web.config import WebConfig

__all__ = ["WebConfig", "create_app"]
