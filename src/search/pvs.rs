//! The principal variation search (NegaScout): the steps of a node, from
//! the early exits and the table through pruning to the move loop.

use shakmaty::{Move, MoveList, Position, Role};

use super::Searcher;
use super::history::{Context, History, pawn_slot};
use super::node::{bound_allows, sharpen, tells_past};
use super::ordering::{MovePicker, is_tactical};
use super::params::{
    DOUBLE_EXTENSION_MAX, deeper_margin, deeper_margin_per_ply, double_extension_margin,
    futility_base, futility_margin, futility_max_depth, history_prune_depth, history_prune_margin,
    iir_min_depth, lmp_limit, lmp_max_depth, lmr_history_divisor, lmr_losing_capture,
    lmr_min_depth, nmp_base, nmp_depth_divisor, nmp_eval_divisor, nmp_min_depth, nmp_verify_depth,
    probcut_margin, probcut_min_depth, probcut_reduction, razor_margin, razor_max_depth,
    rfp_margin, rfp_max_depth, rfp_worsening, see_capture_margin, see_check_margin, see_max_depth,
    see_quiet_margin, shallower_margin, singular_min_depth, singular_tt_depth_margin,
};
use super::see::see_ge;
use crate::board::Board;
use crate::movegen::tactical_moves;
use crate::score::{DRAW, MATE, MATE_BOUND, MAX_PLY, from_tt, is_mate};
use crate::tt::{Bound, Entry, PackedMove};

/// The bounds a later move is searched against: the node's window and
/// the best score found so far.
#[derive(Clone, Copy)]
struct Window {
    alpha: i32,
    beta: i32,
    best: i32,
}

/// The static picture of a node before its moves: the raw and corrected
/// evaluations, the estimate pruning trusts (the corrected evaluation,
/// sharpened by a table bound that lies beyond it), whether the side
/// to move is doing better than two plies ago, and what the opponent's
/// last move did to the evaluation.
#[derive(Clone, Copy)]
struct Estimate {
    raw: i32,
    eval: i32,
    score: i32,
    improving: bool,
    /// The opponent's evaluation before its move plus ours after it:
    /// above zero when the move made things worse for the opponent
    /// (`None` when either node was in check and has no evaluation).
    /// Both evaluations carry the side-to-move bonus, so a move that
    /// changes nothing else shows twice that bonus.
    swing: Option<i32>,
}

impl Estimate {
    /// Worsening: the opponent's move made things worse for it, so this
    /// side's lead is likelier to be real. With the side-to-move bonus
    /// counted on both sides, only an opponent's move that gained more
    /// than twice that bonus is not worsening.
    fn worsening(self) -> bool {
        self.swing.is_some_and(|s| s > 0)
    }
}

/// The kind of node the search expects (Knuth and Moore): on the
/// principal variation, one where a move should refute (cut), or one
/// where every move should fail low (all).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Node {
    Pv,
    Cut,
    All,
}

impl Node {
    /// The kind expected below this node's first move: a refutation
    /// answers a move that failed low, and the reverse.
    fn first_child(self) -> Node {
        match self {
            Node::Pv => Node::Pv,
            Node::Cut => Node::All,
            Node::All => Node::Cut,
        }
    }
}

/// The outcome of the singular test of a table move.
enum Singular {
    /// Search the table move this many plies more (or, when negative, less).
    Extend(i32),
    /// Other moves beat beta too: the node cuts with this score.
    Cut(i32),
}

impl Searcher {
    /// Fail-soft negamax PVS: returns the score of `board` from the side to
    /// move, searched `depth` plies deep within the window (`alpha`, `beta`).
    /// The steps are numbered and read in order; each larger one has its
    /// own function below.
    #[allow(clippy::too_many_lines)]
    pub(super) fn search(
        &mut self,
        board: &Board,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        node: Node,
    ) -> i32 {
        let pv_node = node == Node::Pv;
        let in_check = board.in_check();
        self.pv[ply].clear();

        // 1. Check extension: never stand pat in check, and see the escape.
        if in_check {
            depth += 1;
        }
        // 2. At the horizon, settle the captures before trusting the score.
        if depth <= 0 {
            return self.qsearch(board, alpha, beta, ply);
        }

        // 3. Abort check: the flag, or the node budget.
        self.nodes += 1;
        if self.should_stop() {
            return DRAW;
        }
        self.seldepth = self.seldepth.max(ply);

        let root = ply == 0;
        let excluded = self.excluded[ply];
        if !root {
            // 4. Early exits: draws (and a draw one move away), the edge
            // of the ply stack, and mate-distance pruning (no line here can
            // beat a mate already found).
            if self.is_draw(board) {
                return DRAW;
            }
            // A move back to an earlier position would be such a draw, so
            // the side to move can count on at least a draw.
            if alpha < DRAW && self.can_repeat(board) {
                alpha = DRAW;
                if alpha >= beta {
                    return alpha;
                }
            }
            if ply >= MAX_PLY - 1 {
                return self.evaluator.evaluate(board, ply);
            }
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        // 5. Transposition table: reuse a result that is deep enough, but
        // never cut at PV nodes, whose line we want to show whole. A search
        // that excludes a move is about another question: skip the table.
        let entry = if excluded.is_none() {
            self.probe(board)
        } else {
            None
        };
        let tt_move = entry.map_or(PackedMove::NONE, |e| e.mv);
        if let Some(e) = entry
            && !pv_node
            && e.depth >= depth
            && bound_allows(e.bound, from_tt(e.score, ply), alpha, beta)
        {
            return from_tt(e.score, ply);
        }

        // 5b. Tablebases: right after a capture or pawn move, an endgame in
        // the tables has a known outcome; a bound that settles the window
        // ends the search here.
        if !root
            && excluded.is_none()
            && let Some(score) = self.probe_tablebase(board, ply, depth, alpha, beta)
        {
            return score;
        }

        // 6. Static evaluation and the estimate pruning trusts.
        let est = self.estimate(board, entry, in_check, ply);
        // What the opponent's quiet move did to the evaluation says how
        // good it was, before any search of it returns.
        if let (Some(m), Some(swing)) = (self.context[ply].last_quiet, est.swing)
            && excluded.is_none()
        {
            self.history.on_eval_change(!board.turn(), m, swing);
        }

        // 7. Pruning before moves, at nodes expected to fail (non-PV).
        if !pv_node
            && !in_check
            && excluded.is_none()
            && let Some(score) = self.prune_node(board, alpha, beta, depth, ply, est)
        {
            return score;
        }

        // 7b. Probcut: at a node expected to cut, a capture that beats beta
        // by a margin in a shallower search will beat beta in a full one.
        if node == Node::Cut
            && !in_check
            && excluded.is_none()
            && depth >= probcut_min_depth()
            && beta.abs() < MATE_BOUND
            && let Some(score) = self.probcut(board, beta, depth, ply, entry, tt_move, est)
        {
            return score;
        }

        // Internal iterative reduction: without a table move the ordering
        // is poor, so spend less here now and come back deeper later.
        if depth >= iir_min_depth() && tt_move == PackedMove::NONE && excluded.is_none() {
            depth -= 1;
        }

        // 8. Move loop: best-first ordering; the first move gets the full
        // window, later ones a null window (after a reduction when they come
        // late) that only proves they are worse, and are searched again
        // when they are not.
        let mut moves = if root {
            self.root_moves
                .iter()
                .copied()
                .filter(|m| !self.shown.contains(m))
                .collect()
        } else {
            board.pos().legal_moves()
        };
        let ctx = Context {
            pawns: pawn_slot(board),
            ..self.context[ply]
        };
        let mut picker = MovePicker::new(&mut moves, tt_move);
        let tt_tactical = picker.table_move().is_some_and(is_tactical);
        let side = board.turn();
        let quiet_keys = History::quiet_keys(side, &ctx);
        let killers = self.history.killers(ply);
        let counter = self.history.counter(&ctx);
        let original_alpha = alpha;
        let mut best_score = -MATE - 1;
        let mut best_move = None;
        let mut quiets_tried = MoveList::new();
        let mut captures_tried = MoveList::new();
        let mut searched = 0;

        while let Some(m) = picker.next_move(board, &self.history, ply, &ctx) {
            if excluded == Some(m) {
                continue;
            }
            let tactical = is_tactical(m);
            // The history of a quiet move, read once for pruning and
            // reductions (0 for a capture, which neither of them reads).
            let history = if tactical {
                0
            } else {
                self.history.quiet_at(&quiet_keys, m)
            };

            // 8a. Move pruning, once a line that is not mated is known.
            if !root && best_score > -MATE_BOUND {
                // A quiet move is hopeless when it comes late, or when its
                // history says it has failed here again and again.
                let hopeless = quiets_tried.len() >= lmp_limit(depth, est.improving)
                    || (depth <= history_prune_depth()
                        && history < -history_prune_margin() * depth);
                // Futility asks whether a quiet move could lift the
                // evaluation to alpha in the search it would get: one
                // shortened by its late-move reduction.
                let futility_depth = if tactical {
                    depth
                } else {
                    (depth - self.base_reduction(depth, searched + 1)).max(1)
                };
                let prune = Prune {
                    depth,
                    futility_depth,
                    // Against a mate already found, only a shorter mate
                    // raises alpha, and no evaluation says which move
                    // could give one: nothing is futile there.
                    gap: if alpha < MATE_BOUND {
                        alpha - est.eval
                    } else {
                        i32::MIN
                    },
                    exempt: pv_node || in_check,
                    hopeless,
                };
                if skip_move(board, m, &prune) {
                    continue;
                }
            }

            // 8b. Singular extension of the table move.
            let mut extension = 0;
            if let Some(e) = entry
                && !root
                && depth >= singular_min_depth()
                && tt_move.matches(m)
                && e.depth >= depth - singular_tt_depth_margin()
                && e.bound != Bound::Upper
                && !is_mate(e.score)
            {
                match self.singular(board, m, from_tt(e.score, ply), depth, beta, ply, pv_node) {
                    Singular::Extend(plies) => extension = plies,
                    Singular::Cut(score) => return score,
                }
            }

            let nodes_before = self.nodes;
            let child = self.enter(board, m, ply, &ctx);
            searched += 1;
            self.doubles[ply + 1] = self.doubles[ply] + u8::from(extension >= 2);
            let new_depth = depth - 1 + extension;
            let score = if searched == 1 {
                -self.search(
                    &child,
                    -beta,
                    -alpha,
                    new_depth,
                    ply + 1,
                    node.first_child(),
                )
            } else {
                // Late move reductions: late quiet moves are rarely best.
                let mut r = 0;
                if depth >= lmr_min_depth() && !tactical {
                    r = self.base_reduction(depth, searched);
                    r -= i32::from(pv_node);
                    r += i32::from(!est.improving);
                    // Killers and the countermove refuted before: they
                    // are likelier than the other quiet moves to be best.
                    r -= i32::from(killers.contains(&Some(m)) || counter == Some(m));
                    r -= i32::from(child.in_check());
                    // A capture as the table move: the quiet moves after it
                    // are even less likely to be best.
                    r += i32::from(tt_tactical);
                    r -= history / lmr_history_divisor();
                    r = r.clamp(0, new_depth - 1);
                } else if depth >= lmr_min_depth()
                    && !pv_node
                    && !child.in_check()
                    && picker.last_loses_material()
                {
                    // A capture that loses material comes last in the
                    // order, after every quiet move that was not pruned:
                    // when it is reached nothing better has cut, and
                    // giving a piece away rarely changes that.
                    r = lmr_losing_capture();
                }
                let window = Window {
                    alpha,
                    beta,
                    best: best_score,
                };
                self.null_window(&child, window, new_depth, r, ply + 1, pv_node)
            };
            self.keys.pop();
            if self.stopped {
                return DRAW;
            }
            if root {
                self.root_nodes.push((m, self.nodes - nodes_before));
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        // 8c. Remember what refutes, and what did not.
                        self.count_cutoff(searched, tt_move);
                        if tactical {
                            self.history
                                .on_capture_cutoff(side, depth, Some(m), &captures_tried);
                        } else {
                            self.history
                                .on_quiet_cutoff(side, ply, depth, m, &quiets_tried, &ctx);
                            self.history
                                .on_capture_cutoff(side, depth, None, &captures_tried);
                        }
                        break;
                    }
                }
            }
            if tactical {
                captures_tried.push(m);
            } else {
                quiets_tried.push(m);
            }
        }

        // 9. No legal move: checkmate or stalemate (or, in a singular
        // search, no move but the excluded one). Pruning never skips the
        // first move, so nothing searched means nothing legal.
        if searched == 0 {
            return if excluded.is_some() {
                alpha
            } else if in_check {
                -MATE + ply as i32
            } else {
                DRAW
            };
        }

        // 10. Store what was learnt (not a root search that leaves out the
        // better lines of MultiPV: its best move is not the position's).
        if excluded.is_none() && (!root || self.shown.is_empty()) {
            let bound = if best_score >= beta {
                Bound::Lower
            } else if alpha > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.store(
                board, ply, best_move, tt_move, best_score, est.raw, depth, bound,
            );
            // Learn the evaluation's error where the result says which way
            // it erred, and a quiet move (or none) decided it: a capture's
            // gain is no error of the static evaluation.
            if !in_check
                && tells_past(bound, best_score, est.eval)
                && !best_move.is_some_and(is_tactical)
            {
                self.correction
                    .learn(board, ctx.prev, depth, best_score, est.eval);
            }
        }
        best_score
    }

    /// The static evaluation of a node (reused from the table when it has
    /// one), sharpened by the table's score when its bound says which way,
    /// and whether it improves on two plies ago. Records the evaluation
    /// for the plies below.
    #[inline]
    fn estimate(
        &mut self,
        board: &Board,
        entry: Option<Entry>,
        in_check: bool,
        ply: usize,
    ) -> Estimate {
        let (raw, eval) = self.static_eval(board, entry, in_check, ply);
        let score = sharpen(entry, eval, in_check, ply);
        self.evals[ply] = eval;
        // Improving: better than two plies ago, so cut-offs are likelier.
        // When that node was in check it had no evaluation: compare with
        // four plies ago instead; when that one was in check too, or lies
        // before the root, count as improving.
        let improving = !in_check
            && match ply {
                0 | 1 => false,
                _ if self.evals[ply - 2] != -MATE => eval > self.evals[ply - 2],
                2 | 3 => true,
                _ => eval > self.evals[ply - 4] || self.evals[ply - 4] == -MATE,
            };
        let swing = (!in_check && ply >= 1 && self.evals[ply - 1] != -MATE)
            .then(|| eval + self.evals[ply - 1]);
        Estimate {
            raw,
            eval,
            score,
            improving,
            swing,
        }
    }

    /// Pruning of a whole non-PV node not in check before its moves;
    /// `Some(score)` when the node can return at once.
    #[inline]
    fn prune_node(
        &mut self,
        board: &Board,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        est: Estimate,
    ) -> Option<i32> {
        let estimate = est.score;
        // Reverse futility: so far above beta that a ply more won't fall
        // below. A lead the opponent's own move handed over needs less.
        // Neither it nor razoring holds against a mate bound: there the
        // question is the distance to mate, which no evaluation answers.
        if depth <= rfp_max_depth()
            && estimate < MATE_BOUND
            && beta > -MATE_BOUND
            && estimate - rfp_margin() * (depth - i32::from(est.improving))
                + rfp_worsening() * i32::from(est.worsening())
                >= beta
        {
            return Some(estimate);
        }
        // Razoring: so far below alpha that only captures could help.
        if depth <= razor_max_depth()
            && alpha < MATE_BOUND
            && estimate + razor_margin() * depth < alpha
        {
            let score = self.qsearch(board, alpha, alpha + 1, ply);
            if score <= alpha {
                return Some(score);
            }
        }
        // Null move: if passing still beats beta, a real move will too
        // (not in pawn endings, where passing can be the only good move).
        if depth >= nmp_min_depth()
            && estimate >= beta
            && est.eval >= beta
            && self.context[ply].prev.is_some()
            && ply >= self.nmp_min_ply
            && has_pieces(board)
        {
            return self.null_move(board, beta, depth, estimate, ply);
        }
        None
    }

    /// The singular test of the table move `m`, whose stored score is
    /// `tt_score`: when it is much better than every other move, search it
    /// deeper (two plies when far better, away from the principal variation
    /// and a few times per line); when even the others beat beta, cut at
    /// once (multi-cut); when the table move beats beta but is not alone in
    /// doing so, it needs less proof: search it a ply shallower.
    #[allow(clippy::too_many_arguments)]
    fn singular(
        &mut self,
        board: &Board,
        m: Move,
        tt_score: i32,
        depth: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> Singular {
        let singular_beta = tt_score - 2 * depth;
        self.excluded[ply] = Some(m);
        let score = self.search(
            board,
            singular_beta - 1,
            singular_beta,
            (depth - 1) / 2,
            ply,
            Node::All,
        );
        self.excluded[ply] = None;
        if self.stopped {
            return Singular::Cut(DRAW);
        }
        if score < singular_beta {
            let double = !pv_node
                && score < singular_beta - double_extension_margin()
                && self.doubles[ply] < DOUBLE_EXTENSION_MAX;
            Singular::Extend(if double { 2 } else { 1 })
        } else if singular_beta >= beta {
            Singular::Cut(singular_beta)
        } else if tt_score >= beta {
            Singular::Extend(-1)
        } else {
            Singular::Extend(0)
        }
    }

    /// A later move's search, scored from the parent's side: `child` (at
    /// `child_ply`) with a null window at the depth less the reduction `r`,
    /// then, when it beats alpha reduced, again at the full depth — a ply
    /// deeper when it beat the node's best by far, a ply shallower when
    /// only just — and then (at PV nodes) with the full window when it
    /// lands inside it.
    #[inline]
    fn null_window(
        &mut self,
        child: &Board,
        window: Window,
        mut new_depth: i32,
        r: i32,
        child_ply: usize,
        pv_node: bool,
    ) -> i32 {
        let Window { alpha, beta, best } = window;
        self.stats.null_windows += 1;
        let reduced = new_depth - r;
        let mut s = -self.search(child, -alpha - 1, -alpha, reduced, child_ply, Node::Cut);
        if s > alpha && r > 0 {
            // A move that beats the best by a wide margin even reduced is
            // worth a closer look; one that barely does is likely to fall
            // back, and the full depth would be spent confirming that.
            new_depth +=
                i32::from(s > best + deeper_margin() + deeper_margin_per_ply() * new_depth);
            new_depth -= i32::from(s < best + shallower_margin());
            if new_depth > reduced {
                self.stats.researches += 1;
                s = -self.search(child, -alpha - 1, -alpha, new_depth, child_ply, Node::Cut);
            }
        }
        if s > alpha && s < beta && pv_node {
            self.stats.researches += 1;
            s = -self.search(child, -beta, -alpha, new_depth, child_ply, Node::Pv);
        }
        s
    }

    /// Counts a cut-off for the analytics: whether the first move searched
    /// made it, overall and at nodes with a table move.
    #[inline]
    fn count_cutoff(&mut self, searched: usize, tt_move: PackedMove) {
        let first = u64::from(searched == 1);
        self.stats.cut_nodes += 1;
        self.stats.first_move_cuts += first;
        if tt_move != PackedMove::NONE {
            self.stats.tt_move_cut_nodes += 1;
            self.stats.tt_move_first_cuts += first;
        }
    }

    /// Probcut: each capture that SEE lets reach `beta` + margin from the
    /// static evaluation is tried by quiescence and, when that holds the
    /// raised bound, by a search `probcut_reduction()` plies shallower; the
    /// first that holds it ends the node. Skipped when the table already
    /// has a result that deep below the raised bound.
    #[allow(clippy::too_many_arguments)]
    fn probcut(
        &mut self,
        board: &Board,
        beta: i32,
        depth: i32,
        ply: usize,
        entry: Option<Entry>,
        tt_move: PackedMove,
        est: Estimate,
    ) -> Option<i32> {
        let raised = beta + probcut_margin();
        let probe_depth = depth - probcut_reduction();
        if let Some(e) = entry
            && e.depth >= probe_depth
            && from_tt(e.score, ply) < raised
        {
            return None;
        }
        let mut moves = tactical_moves(board.pos());
        let mut picker = MovePicker::tactical(&mut moves, tt_move, &self.history, board.turn());
        let ctx = self.context[ply];
        while let Some(m) = picker.next_move(board, &self.history, ply, &ctx) {
            if !see_ge(board.pos(), m, raised - est.eval) {
                continue;
            }
            let child = self.enter(board, m, ply, &ctx);
            self.doubles[ply + 1] = self.doubles[ply];
            let mut score = -self.qsearch(&child, -raised, -raised + 1, ply + 1);
            if score >= raised && !self.stopped {
                score = -self.search(
                    &child,
                    -raised,
                    -raised + 1,
                    probe_depth,
                    ply + 1,
                    Node::All,
                );
            }
            self.keys.pop();
            if self.stopped {
                return None;
            }
            if score >= raised {
                self.store(
                    board,
                    ply,
                    Some(m),
                    tt_move,
                    score,
                    est.raw,
                    probe_depth + 1,
                    Bound::Lower,
                );
                return Some(score);
            }
        }
        None
    }

    /// The late-move reduction the table gives the `number`th move of a
    /// node at `depth`, before the adjustments of the move loop: the
    /// reduced search and the futility of a quiet move both read it.
    #[inline]
    fn base_reduction(&self, depth: i32, number: usize) -> i32 {
        self.lmr[depth.min(63) as usize][number.min(63)]
    }

    /// Tries a null move; `Some(score)` when it proves a cut-off.
    fn null_move(
        &mut self,
        board: &Board,
        beta: i32,
        depth: i32,
        estimate: i32,
        ply: usize,
    ) -> Option<i32> {
        let child = self.pass(board, ply)?;
        let r = nmp_base()
            + depth / nmp_depth_divisor()
            + ((estimate - beta) / nmp_eval_divisor()).min(3);
        let reply_depth = depth - 1 - r;
        self.keys.push(child.key());
        self.nulls.push(self.keys.len() - 1);
        self.context[ply + 1] = Context::default();
        self.doubles[ply + 1] = self.doubles[ply];
        let score = -self.search(&child, -beta, -beta + 1, reply_depth, ply + 1, Node::All);
        self.nulls.pop();
        self.keys.pop();
        if self.stopped || score < beta {
            return None;
        }
        // A mate found after passing is not proved: report beta instead.
        let score = if score >= MATE_BOUND { beta } else { score };
        if depth < nmp_verify_depth() || self.nmp_min_ply > 0 {
            return Some(score);
        }
        // Deep enough for a zugzwang to cost a real game: prove the cut-off
        // by moving, with null moves off for most of the proof (both sides,
        // so neither can pass its way out of the zugzwang). The node's steps
        // before the null move run again, the evaluation's lesson to the
        // history included: it happens at few nodes, all deep. A reply
        // of one ply (depth 12, beta beaten by 600 cp) leaves null moves on
        // at the node itself: the proof is then the null move again, and is
        // taken as it stands.
        self.nmp_min_ply = ply + (3 * reply_depth / 4) as usize;
        let verified = self.search(board, beta - 1, beta, reply_depth, ply, Node::Cut);
        self.nmp_min_ply = 0;
        (!self.stopped && verified >= beta).then_some(score)
    }
}

/// What move pruning reads of a node, for `skip_move`.
struct Prune {
    /// The node's depth.
    depth: i32,
    /// The depth futility judges a quiet move by (after its reduction).
    futility_depth: i32,
    /// How far the static evaluation lies below alpha.
    gap: i32,
    /// At PV nodes and in check, nothing is futile or late.
    exempt: bool,
    /// The quiet move comes late, or its history is poor.
    hopeless: bool,
}

/// Whether move `m` can be left out: captures that lose too much
/// material; quiet moves that are hopeless or cannot lift the evaluation
/// to alpha in the depth their reduction leaves them (neither when
/// exempt); quiet moves that lose too much material; moves that give
/// check only when they lose far more.
#[inline]
fn skip_move(board: &Board, m: Move, p: &Prune) -> bool {
    let depth = p.depth;
    // Deeper than every pruning step reaches, nothing is skipped, and the
    // test for check below is not worth its cost.
    if depth
        > see_max_depth()
            .max(lmp_max_depth())
            .max(futility_max_depth())
    {
        return false;
    }
    // A check is forcing: the reply is one of few, and the evaluation
    // sees nothing of the threat to the king. It is never futile or late,
    // and only a sacrifice of more than it can hope to win back is skipped.
    if board.gives_check(m) {
        return depth <= see_max_depth() && !see_ge(board.pos(), m, -see_check_margin() * depth);
    }
    if is_tactical(m) {
        return depth <= see_max_depth()
            && !see_ge(board.pos(), m, -see_capture_margin() * depth * depth);
    }
    let fd = p.futility_depth;
    let futile = fd <= futility_max_depth() && futility_base() + futility_margin() * fd <= p.gap;
    if !p.exempt && ((depth <= lmp_max_depth() && p.hopeless) || futile) {
        return true;
    }
    depth <= see_max_depth() && !see_ge(board.pos(), m, -see_quiet_margin() * depth)
}

/// Whether the side to move has a piece other than pawns and king.
fn has_pieces(board: &Board) -> bool {
    let b = board.pos().board();
    let ours = b.by_color(board.turn());
    (ours & !b.by_role(Role::Pawn) & !b.by_role(Role::King)).any()
}

#[cfg(test)]
mod tests {
    use shakmaty::uci::UciMove;

    use super::{Prune, skip_move};
    use crate::board::{Board, test_position};

    #[test]
    fn futility_judges_a_quiet_move_by_the_depth_its_reduction_leaves() {
        // Kg1-f1 is a safe quiet move. The evaluation is 600 below alpha.
        let board = Board::new(test_position("k7/8/8/1p6/4q3/2N5/8/6K1 w - - 0 1"));
        let mv = |uci: &str| {
            uci.parse::<UciMove>()
                .unwrap()
                .to_move(board.pos())
                .unwrap()
        };
        let prune = |depth, futility_depth, exempt| Prune {
            depth,
            futility_depth,
            gap: 600,
            exempt,
            hopeless: false,
        };
        // A quiet move at depth 8 is judged by the depth its reduction
        // leaves: 90 + 90 per ply reaches 600 beyond 5 plies.
        assert!(skip_move(&board, mv("g1f1"), &prune(8, 5, false)));
        assert!(!skip_move(&board, mv("g1f1"), &prune(8, 6, false)));
        assert!(!skip_move(&board, mv("g1f1"), &prune(8, 5, true)));
    }
}
