from ..common import log


def run():
    log("start")
    return 0
