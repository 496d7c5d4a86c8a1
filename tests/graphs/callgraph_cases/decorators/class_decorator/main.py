PLUGINS = {}


def plugin(cls):
    PLUGINS[cls.__name__] = cls
    return cls


@plugin
class Exporter:
    def __init__(self):
        self.format = "csv"

    def run(self):
        return self.format


Exporter().run()
