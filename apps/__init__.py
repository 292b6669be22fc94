"""``apps`` is :mod:`smear_apps` (``apps`` is a name other projects give their own package): this name and every
module under it (``apps.eval``, ``apps.web.app``) still import, as the new modules themselves, with a warning, for
one release. The commands (``smear-eval``, ``smear-web``, ...) run ``smear_apps``."""

from smear_rl.moved import moved_package

moved_package("apps", "smear_apps")
