"""Notebook panels: chat, image and video generation, asset library, history, and ``Studio``.

Each panel is one anywidget on the shared front-end kit. Panels do no HTTP themselves: they
ask the ``AsyncClient`` of a shared ``Session`` and run work as asyncio tasks on the kernel's
loop, so every button returns at once."""

from mediagen_nb.widgets._asset_panel import AssetPanel
from mediagen_nb.widgets._chat_panel import ChatPanel
from mediagen_nb.widgets._gallery import Result
from mediagen_nb.widgets._generate_panel import ImagePanel, VideoPanel
from mediagen_nb.widgets._history_panel import HistoryPanel
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._studio import Studio
from mediagen_nb.widgets._sweep_grid import SweepGrid
from mediagen_nb.widgets._transcript import ChatTranscript, ChatTurn

__all__ = [
    "AssetPanel",
    "ChatPanel",
    "ChatTranscript",
    "ChatTurn",
    "HistoryPanel",
    "ImagePanel",
    "Result",
    "Session",
    "Studio",
    "SweepGrid",
    "VideoPanel",
]
