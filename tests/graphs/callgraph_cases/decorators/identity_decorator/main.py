REGISTRY = {}


def register(fn):
    REGISTRY[fn.__name__] = fn
    return fn


@register
def build():
    return "built"


@register
def clean():
    return "cleaned"


build()
