"""gpu_tracker 5.0.1's module tree over libgputracker: code written for
gpu_tracker imports ``gputracker.gpu_tracker`` where it imported
``gpu_tracker`` (``import gputracker.gpu_tracker as gpu_tracker``, or
``from gputracker.gpu_tracker.tracker import Tracker``) and the rest stays.
The same classes as ``gputracker.Tracker`` and its neighbours."""
from .sub_tracker import SubTracker, SubTrackingAnalyzer, TrackingComparison, sub_track
from .tracker import Tracker

# The gpu_tracker release whose interface this module keeps, as its users
# test it; gputracker.__version__ is ours.
__version__ = '5.0.1'

__all__ = ['Tracker', 'SubTracker', 'sub_track', 'SubTrackingAnalyzer', 'TrackingComparison']
