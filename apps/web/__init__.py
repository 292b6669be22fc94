"""``smear-web``: play Smear in a browser against any agents, and replay records (``app``, ``tables``, ``replay``)."""
