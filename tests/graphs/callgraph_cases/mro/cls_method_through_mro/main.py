class Registry:
    @classmethod
    def default_name(cls):
        return "registry"

    @classmethod
    def create_label(cls):
        return cls.default_name()


class PluginRegistry(Registry):
    @classmethod
    def describe(cls):
        return cls.create_label()


PluginRegistry.describe()
