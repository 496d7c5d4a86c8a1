from base import Handler


class JsonHandler(Handler):
    def parse(self, text):
        return text


JsonHandler().handle("{}")
