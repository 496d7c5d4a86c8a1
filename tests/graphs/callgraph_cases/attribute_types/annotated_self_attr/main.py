class Cache:
    def get(self, key):
        return key


class Service:
    def __init__(self, cache):
        self.cache: Cache = cache

    def lookup(self, key):
        return self.cache.get(key)


Service(None)
