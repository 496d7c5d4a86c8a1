from .. import config as cfg


def index():
    return cfg.get("title")
