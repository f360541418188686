"""The ``nshash`` logger: what the library tells an application, which decides what to show.

nshash never prints (the ``nshash`` command writes its own output; that is
not logging).  Modules log to children of the ``nshash`` logger, which has a
:class:`logging.NullHandler`, so an application that configures no logging
sees nothing, not Python's last-resort output on stderr.  What is logged:

- INFO: an index opened, saved and closed (by the Scrapy pipeline and the
  ``nshash`` command), with its store and counts;
- DEBUG: each merge of two clusters and each near-duplicate dropped by the pipeline.

Turn it on like any library's logging::

    import logging
    logging.basicConfig()
    logging.getLogger("nshash").setLevel(logging.DEBUG)

>>> get_logger("nshash.scrapy").name
'nshash.scrapy'
>>> get_logger("other").name  # always under the nshash logger
'nshash.other'
"""

from __future__ import annotations

import logging
from typing import Final

#: The name of the library's root logger.
LOGGER_NAME: Final = "nshash"

logging.getLogger(LOGGER_NAME).addHandler(logging.NullHandler())


def get_logger(name: str) -> logging.Logger:
    """The logger for module ``name`` (``__name__``), always a child of the ``nshash`` logger."""
    if name != LOGGER_NAME and not name.startswith(LOGGER_NAME + "."):
        name = f"{LOGGER_NAME}.{name}"
    return logging.getLogger(name)
