import helpers
import helpers as h

helpers.load()
h.parse()
