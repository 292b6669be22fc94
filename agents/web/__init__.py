"""``smear-web``: play Smear in a browser against any agents (:mod:`agents.web.app`, :mod:`agents.web.tables`)."""
