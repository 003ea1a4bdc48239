"""Notebook panels: chat, image and video generation, asset library, history, and ``Studio``.

Panels never do HTTP themselves: they ask the shared ``AsyncClient`` of a ``Session``
(``current_session()`` unless one is given) and run work as asyncio tasks on the kernel's
loop, so every button returns at once.
"""

from mediagen_nb.widgets._asset_panel import AssetPanel, AssetRow
from mediagen_nb.widgets._chat_panel import ChatPanel
from mediagen_nb.widgets._copy import CopyButton
from mediagen_nb.widgets._form import GenerationForm
from mediagen_nb.widgets._generate_panel import ImagePanel, VideoPanel
from mediagen_nb.widgets._history_panel import HistoryPanel
from mediagen_nb.widgets._session import ActiveAsset, Session, current_session
from mediagen_nb.widgets._studio import Studio
from mediagen_nb.widgets._task_card import TaskCard
from mediagen_nb.widgets._transcript import ChatTranscript, ChatTurn

__all__ = [
    "ActiveAsset",
    "AssetPanel",
    "AssetRow",
    "ChatPanel",
    "ChatTranscript",
    "ChatTurn",
    "CopyButton",
    "GenerationForm",
    "HistoryPanel",
    "ImagePanel",
    "Session",
    "Studio",
    "TaskCard",
    "VideoPanel",
    "current_session",
]
