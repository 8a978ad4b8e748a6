"""How an error message tells the user to install one of trustscore's optional extras."""

__all__ = ["install_extra"]


def install_extra(extra: str) -> str:
    """The pip command that adds ``extra``, as the README gives it.

    trustscore is not on PyPI, so pip cannot find it by name: the extra comes from a checkout of the
    repository or from a wheel built from one.
    """
    return (
        f"pip install '/path/to/trustscore[{extra}]', with the path of your checkout of trustscore "
        "or of a wheel built from it (trustscore is not on PyPI)"
    )
