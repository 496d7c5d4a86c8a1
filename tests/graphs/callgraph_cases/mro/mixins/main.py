def quote(text):
    return '"' + text + '"'


class JsonMixin:
    def to_json(self):
        return quote("record")


class SizeMixin:
    def size(self):
        return 1


class Record:
    def __init__(self):
        self.fields = {}


class JsonRecord(JsonMixin, SizeMixin, Record):
    def export(self):
        self.size()
        return self.to_json()


r = JsonRecord()
r.export()
