"""gpu_tracker 5.0.1's ``gpu_tracker.sub_tracker``: SubTracker, sub_track,
the analysis and comparison classes and their results (gputracker's, the
same objects; their pickles read as gpu_tracker's read)."""
from .._sub_tracker import SubTracker, sub_track
from .._sub_tracking_analysis import (CodeBlockResults, ComparisonResults, SubTrackingAnalyzer, SubTrackingResults,
                                      TrackingComparison)

__all__ = ['SubTracker', 'sub_track', 'SubTrackingAnalyzer', 'TrackingComparison', 'SubTrackingResults',
           'CodeBlockResults', 'ComparisonResults']
