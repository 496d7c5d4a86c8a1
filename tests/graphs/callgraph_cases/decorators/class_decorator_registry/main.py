REGISTRY = []


def register(cls):
    REGISTRY.append(cls)
    return cls


@register
class Plugin:
    def __init__(self):
        self.name = "plugin"

    def run(self):
        return self.name


for plugin_class in REGISTRY:
    plugin_class().run()
