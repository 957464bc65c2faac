//! Counters of a search that show how well it orders and prunes (`bench`
//! prints them).

/// Counters that show how well the search orders and prunes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Nodes that failed high, and those that did so on their first move.
    pub cut_nodes: u64,
    pub first_move_cuts: u64,
    /// The same, counted only at nodes that had a table move.
    pub tt_move_cut_nodes: u64,
    pub tt_move_first_cuts: u64,
    /// The same in the quiescence search, where a move cut (not the
    /// stand-pat score).
    pub qcut_nodes: u64,
    pub qfirst_move_cuts: u64,
    /// Null-window searches of later moves, and how many were searched again.
    pub null_windows: u64,
    pub researches: u64,
    /// Quiescence nodes (part of all nodes).
    pub qnodes: u64,
    /// Table probes and hits.
    pub tt_probes: u64,
    pub tt_hits: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.cut_nodes += o.cut_nodes;
        self.first_move_cuts += o.first_move_cuts;
        self.tt_move_cut_nodes += o.tt_move_cut_nodes;
        self.tt_move_first_cuts += o.tt_move_first_cuts;
        self.qcut_nodes += o.qcut_nodes;
        self.qfirst_move_cuts += o.qfirst_move_cuts;
        self.null_windows += o.null_windows;
        self.researches += o.researches;
        self.qnodes += o.qnodes;
        self.tt_probes += o.tt_probes;
        self.tt_hits += o.tt_hits;
    }
}
