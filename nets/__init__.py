"""``nets`` is :mod:`smear_nets` (a name of the kit's own in site-packages): this name and every module under it
(``nets.shipped``, ``nets.checkpoint``) still import, as the new modules themselves, with a warning, for one
release."""

from smear_rl.moved import moved_package

moved_package("nets", "smear_nets")
