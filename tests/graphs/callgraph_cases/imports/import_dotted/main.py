import pkg.net.client

pkg.net.client.fetch()
