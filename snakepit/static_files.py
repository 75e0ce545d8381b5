"""WhiteNoise's middleware, able to run in Django's async chain.

WhiteNoise 6 is sync-only, and under ASGI one sync-only middleware makes Django run the whole request
in a thread of its own that lives as long as the response: an event stream (api/streams.py) would
hold a thread for hours. Here a static file is still served by WhiteNoise itself (its lookup is a
dictionary read, and Django iterates the file in a thread as it does any sync body); every other
request goes down the chain without leaving the event loop.
"""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from whitenoise.middleware import WhiteNoiseMiddleware


class AsyncCapableWhiteNoiseMiddleware(WhiteNoiseMiddleware):
    sync_capable = True
    async_capable = True

    def __init__(self, get_response=None, settings=None):
        if settings is None:
            super().__init__(get_response)
        else:
            super().__init__(get_response, settings)
        if get_response is not None and iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request):
        if iscoroutinefunction(self):
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request):
        static_file = self._static_file(request)
        if static_file is not None:
            return self.serve(static_file, request)
        return await self.get_response(request)

    def _static_file(self, request):
        if self.autorefresh:
            return self.find_file(request.path_info)
        return self.files.get(request.path_info)
