class Config:
    @classmethod
    def defaults(cls):
        return {"debug": False}

    @classmethod
    def load(cls):
        return cls.defaults()


Config.load()
Config().defaults()
