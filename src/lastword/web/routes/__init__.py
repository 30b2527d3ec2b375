"""One router per page (ask, inspect, corpus, evaluation, admin, auth) and the JSON API."""
