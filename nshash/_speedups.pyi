from collections.abc import Callable

def sentence_keys(
    text: str, k: int, min_len: int, anchor: int, html: bool, /
) -> tuple[list[int], list[int], int] | None: ...
def fingerprint64(data: bytes, /) -> int: ...

class Assigner:
    def __init__(
        self,
        fp: dict[int, int],
        parent: dict[int, int],
        stat: dict[int, int],
        allocate: Callable[[], int],
        *,
        n: int,
        extra: int,
        min_len: int,
        min_match: int,
        anchor: int,
        boilerplate: bool,
        boilerplate_after: int,
    ) -> None: ...
    def __call__(self, text: str, /) -> int | None: ...
    def assign(self, keys: list[int], positions: list[int], /) -> int: ...
