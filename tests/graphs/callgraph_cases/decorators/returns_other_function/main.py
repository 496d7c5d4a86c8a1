def fallback():
    return "fallback"


def disable(fn):
    return fallback


@disable
def feature():
    return "feature"


feature()
