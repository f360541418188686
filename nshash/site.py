"""A page's site signature: keys of the chrome lines it dropped at its edges, and whether two pages share a site.

A page's menus, header and footer links are dropped as chrome before its
lines are keyed (:func:`nshash.chrome.drop_chrome`); a few of them, keyed
apart from its lines (:func:`site_key`), go into the line filter its
cluster keeps of it (:mod:`nshash.members`).  :mod:`nshash.frame` asks
:func:`same_site` to tell a sibling page of a member's site, whose footer
is most of both pages, from a copy of the member's article elsewhere.
The C (``nshash/_chrome.h``, ``nshash/_frame.h``, ``nshash/_member.h``) implements them too.

Members stored before nshash kept site keys have none: pages compared with
them decide as before.  Tried and not kept (real chrome around real
articles, ``benchmarks/run_realchrome.py``, and the 95 synthetic files):
every dropped line, not only the edges' (a manual's short lines, "Syntax",
"Example", dropped inside the article of a copy and of its source, made two
sites one: F1 down on 33 files, up on 32); edge lines keyed as lines, not
apart (a page's dropped menu then found among a short member's kept lines:
F1 here 0.904 instead of 0.901, but down on 24 synthetic files, up on 14).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from nshash.edges import has_line

#: A page's site keys are made of the lines (:func:`~nshash.chrome.drop_chrome`'s edges)
#: with at least this many characters once normalised ("Home" and
#: "登录注册" count, a lone "|" or "›" does not) ...
SITE_MIN_CHARS: Final = 4
#: ... the first this many distinct line keys of those edges and the last this many:
#: what a site's header and footer hold, not a long menu's every entry.
SITE_KEYS: Final = 8
#: A site key is its line's key times this (mod 2**32): it sets other bits of a
#: member's line filter than the line's own key, so that a page's dropped menu
#: is found only among the member's dropped menus, never in its kept text (an
#: article that copied another's navigation lines is not of that site).
_SITE_MIX: Final = 0x9E3779B1
#: A page is of a member's site (:func:`same_site`) when at least
#: ``SITE_MIN_MATCHES`` of its site keys, and this share of them, are in the
#: member's line filter.  A key is a false hit 1.6% of the time at the
#: filter's usual fill (100 lines: a quarter of its bits set), so two sites
#: look alike about once in 10,000 pairs at most (a page of 6 keys, 3 of them
#: false hits).
SITE_MATCH: Final = 0.5
SITE_MIN_MATCHES: Final = 3


def site_key(line_key: int) -> int:
    """The key a dropped chrome line sets in a member's line filter (see :data:`_SITE_MIX`)."""
    return (line_key * _SITE_MIX) & 0xFFFFFFFF


def same_site(site_keys: Sequence[int], bits: int) -> bool:
    """Whether a page whose site signature is ``site_keys`` is of the site of the member whose lines are ``bits``."""
    if len(site_keys) < SITE_MIN_MATCHES:
        return False
    hits = sum(1 for key in site_keys if has_line(bits, key))
    return hits >= SITE_MIN_MATCHES and hits >= SITE_MATCH * len(site_keys)
