//! Static evaluation: a tapered handcrafted evaluation whose weights are
//! fitted to game results by `brudno tune`.
//!
//! The search sees [`evaluate`] (and [`Evaluator`], which adds a pawn
//! cache): centipawns from the side to move's point of view. The terms live
//! in `terms.rs`, the weight layout in `layout.rs`, the weights in
//! `weights.rs`; the tuner reads the same terms through [`trace`].

pub mod layout;
pub mod terms;
mod weights;

use shakmaty::{Bitboard, Chess, Color, Piece, Position, Role, Square};

use std::sync::Arc;

use crate::nnue::Network;
use crate::nnue::accumulator::Accumulators;
use crate::score::MAX_PLY;
use terms::Sink;
pub use weights::WEIGHTS;

/// The evaluation a tool runs with, as its command line names it: the
/// network built into the binary (`built-in`), the handcrafted evaluation
/// (`hce`), or a network file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    BuiltIn,
    Handcrafted,
    File(String),
}

impl std::str::FromStr for Choice {
    type Err = String;

    fn from_str(text: &str) -> Result<Choice, String> {
        Ok(match text {
            "" => return Err("an empty name; use `hce` for the handcrafted evaluation".into()),
            "built-in" => Choice::BuiltIn,
            "hce" => Choice::Handcrafted,
            path => Choice::File(path.to_string()),
        })
    }
}

impl Choice {
    /// A short name: `gen2` for the built-in network, a file's stem, `hce`.
    pub fn stem(&self) -> String {
        match self {
            Choice::BuiltIn => crate::nnue::EMBEDDED_NAME
                .trim_end_matches(".nnue")
                .to_string(),
            Choice::Handcrafted => "hce".into(),
            Choice::File(path) => std::path::Path::new(path)
                .file_stem()
                .map_or_else(|| "net".into(), |s| s.to_string_lossy().into_owned()),
        }
    }

    /// What the choice is, for a record of who made some data: the name
    /// and, for a network, the checksum of its weights.
    pub fn describe(&self, net: Option<&Network>) -> String {
        match (self, net) {
            (Choice::BuiltIn, Some(n)) => format!(
                "{} (built-in) fnv {:016x}",
                crate::nnue::EMBEDDED_NAME,
                n.checksum()
            ),
            (Choice::File(path), Some(n)) => format!("{path} fnv {:016x}", n.checksum()),
            _ => "hce".into(),
        }
    }

    /// The network chosen (`None`: the handcrafted evaluation).
    ///
    /// # Errors
    /// When the file cannot be read as a network, saying why.
    pub fn load(&self) -> Result<Option<Arc<Network>>, String> {
        match self {
            Choice::BuiltIn => Ok(Some(crate::nnue::embedded())),
            Choice::Handcrafted => Ok(None),
            Choice::File(path) => Network::load(path)
                .map(|n| Some(Arc::new(n)))
                .map_err(|e| format!("{path}: {e}")),
        }
    }
}

/// A middlegame/endgame pair of centipawn values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pair {
    pub mg: i32,
    pub eg: i32,
}

impl std::ops::AddAssign for Pair {
    fn add_assign(&mut self, o: Pair) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl std::ops::SubAssign for Pair {
    fn sub_assign(&mut self, o: Pair) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

impl std::ops::Sub for Pair {
    type Output = Pair;
    fn sub(self, o: Pair) -> Pair {
        Pair {
            mg: self.mg - o.mg,
            eg: self.eg - o.eg,
        }
    }
}

/// The largest static evaluation: below every tablebase and mate score.
pub const MAX_EVAL: i32 = crate::score::TB_WIN - MAX_PLY as i32 - 1;

/// Phase weight of each role: the phase runs from 24 (all pieces) to 0.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;
/// Endgame scale: 128 is the full endgame score.
pub const SCALE_FULL: i32 = 128;

/// Sums the weights of the terms, White minus Black; with
/// `PIECE_SQUARES` false it leaves out the material and piece-square
/// terms, which the caller has summed already.
#[derive(Default)]
struct Score<const PIECE_SQUARES: bool>(Pair);

/// The whole evaluation, every term summed here.
type FullScore = Score<true>;

impl<const PIECE_SQUARES: bool> Sink for Score<PIECE_SQUARES> {
    const PIECE_SQUARES: bool = PIECE_SQUARES;

    #[inline]
    fn add(&mut self, index: usize, color: Color, count: i32) {
        let w = WEIGHTS[index];
        let n = if color == Color::White { count } else { -count };
        self.0.mg += w.mg * n;
        self.0.eg += w.eg * n;
    }
}

/// The game phase of `pos`, 24 with all pieces on, 0 with none.
pub fn phase(pos: &Chess) -> i32 {
    let b = pos.board();
    Role::ALL
        .iter()
        .map(|&r| PHASE_WEIGHT[r as usize - 1] * b.by_role(r).count() as i32)
        .sum::<i32>()
        .min(MAX_PHASE)
}

/// How much of the endgame score stands, out of 128: endings that are
/// drawish whatever the material says count for less.
pub fn endgame_scale(pos: &Chess, eg: i32) -> i32 {
    let b = pos.board();
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let ours = b.by_color(strong);
    let theirs = b.by_color(strong.other());
    let value = |side: Bitboard| -> i32 {
        [
            (Role::Knight, 3),
            (Role::Bishop, 3),
            (Role::Rook, 5),
            (Role::Queen, 9),
        ]
        .iter()
        .map(|&(r, v)| v * (side & b.by_role(r)).count() as i32)
        .sum()
    };
    let our_pawns = (ours & b.by_role(Role::Pawn)).count();
    // Without pawns, a minor piece more is no win.
    if our_pawns == 0 && value(ours) - value(theirs) <= 3 {
        return if value(ours) <= 3 { 0 } else { 16 };
    }
    // Bishops of opposite colours and nothing else: the defender blockades.
    let bishops = b.by_role(Role::Bishop);
    let others = b.by_role(Role::Knight) | b.by_role(Role::Rook) | b.by_role(Role::Queen);
    if others.is_empty()
        && (ours & bishops).count() == 1
        && (theirs & bishops).count() == 1
        && ((bishops & Bitboard::DARK_SQUARES).count() == 1)
    {
        return 64;
    }
    SCALE_FULL
}

/// Tapers a White-view pair by phase, scaling the endgame part.
pub fn taper(p: Pair, phase: i32, scale: i32) -> i32 {
    (p.mg * phase + p.eg * (MAX_PHASE - phase) * scale / SCALE_FULL) / MAX_PHASE
}

/// A hash of where the pawns of both sides stand. The two pawn sets are
/// mixed by odd multipliers, so each bit of either reaches the high bits,
/// which callers take as their index.
#[inline]
pub fn pawn_hash(b: &shakmaty::Board) -> u64 {
    let pawns = b.by_role(Role::Pawn);
    let (white, black) = ((pawns & b.white()).0, (pawns & b.black()).0);
    let mixed = white.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ black.wrapping_mul(0xD6E8_FEB8_6659_FD93).rotate_left(29);
    (mixed ^ (mixed >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

/// Material and piece-square value of each piece on each square, from
/// White's side (negative for Black's pieces): [colour and role][square].
static PIECE_SQUARE: [[Pair; 64]; 12] = piece_square_table();

const fn piece_square_table() -> [[Pair; 64]; 12] {
    let mut table = [[Pair { mg: 0, eg: 0 }; 64]; 12];
    let mut piece = 0;
    while piece < 12 {
        let (color, sign) = if piece < 6 {
            (Color::Black, -1)
        } else {
            (Color::White, 1)
        };
        let r = piece % 6;
        let mut sq = 0;
        while sq < 64 {
            let at = layout::PST + r * 64 + terms::pst_square(color, Square::ALL[sq]);
            table[piece][sq] = Pair {
                mg: sign * (WEIGHTS[layout::MATERIAL + r].mg + WEIGHTS[at].mg),
                eg: sign * (WEIGHTS[layout::MATERIAL + r].eg + WEIGHTS[at].eg),
            };
            sq += 1;
        }
        piece += 1;
    }
    table
}

/// The material and piece-square value of `piece` on `sq`, from White's side.
#[inline]
pub fn piece_square(piece: Piece, sq: Square) -> Pair {
    PIECE_SQUARE[piece.color as usize * 6 + piece.role as usize - 1][usize::from(sq)]
}

/// The material and piece-square terms of `pos` summed, from White's
/// side: what a board kept up to date move by move hands to
/// [`Evaluator::evaluate`].
pub fn piece_squares(pos: &Chess) -> Pair {
    let mut sum = Pair::default();
    for (sq, piece) in pos.board() {
        sum += piece_square(piece, sq);
    }
    sum
}

/// Pawn-structure results by pawn placement, per search thread.
pub struct Evaluator {
    pawns: Vec<PawnEntry>,
    /// A network (`EvalFile`) that replaces the handcrafted evaluation,
    /// with its accumulators by ply.
    nnue: Option<Accumulators>,
}

#[derive(Clone, Copy, Default)]
struct PawnEntry {
    white: u64,
    black: u64,
    score: Pair,
    passed: u64,
}

const PAWN_ENTRIES: usize = 1 << 14;

impl Default for Evaluator {
    fn default() -> Self {
        Evaluator {
            pawns: vec![PawnEntry::default(); PAWN_ENTRIES],
            nnue: None,
        }
    }
}

impl Evaluator {
    /// The network in use, if any.
    pub fn network(&self) -> Option<Arc<Network>> {
        self.nnue.as_ref().map(|a| a.network().clone())
    }

    /// Evaluates with `net` from now on, or with the handcrafted terms.
    pub fn set_network(&mut self, net: Option<Arc<Network>>) {
        self.nnue = net.map(|n| Accumulators::new(n, MAX_PLY + 2));
    }

    /// A new search from a new root.
    #[inline]
    pub fn new_root(&mut self) {
        if let Some(a) = &mut self.nnue {
            a.new_root();
        }
    }

    /// The search played `m` (by `us`) from the node at `ply`.
    #[inline]
    pub fn moved(&mut self, ply: usize, us: Color, m: shakmaty::Move) {
        if let Some(a) = &mut self.nnue {
            a.moved(ply, us, m);
        }
    }

    /// The search passed the turn (a null move) from the node at `ply`.
    #[inline]
    pub fn passed(&mut self, ply: usize) {
        if let Some(a) = &mut self.nnue {
            a.passed(ply);
        }
    }

    /// The evaluation of `board`, the search's node at `ply`: the
    /// network's when one is loaded, else the handcrafted one.
    #[inline]
    pub fn evaluate_at(&mut self, board: &crate::board::Board, ply: usize) -> i32 {
        match &mut self.nnue {
            // A broken or hostile network can say anything: kept below the
            // tablebase and mate scores, and within the table's i16.
            Some(a) => a.evaluate(board.pos(), ply).clamp(-MAX_EVAL, MAX_EVAL),
            None => self.evaluate(board.pos(), board.piece_squares()),
        }
    }

    /// Static evaluation from the side to move, with cached pawn terms;
    /// `piece_squares` is [`piece_squares`] of `pos`, kept up to date by
    /// the caller.
    #[inline]
    pub fn evaluate(&mut self, pos: &Chess, piece_squares: Pair) -> i32 {
        let b = pos.board();
        let pawns = b.by_role(Role::Pawn);
        let (white, black) = ((pawns & b.white()).0, (pawns & b.black()).0);
        let slot = &mut self.pawns[(pawn_hash(b) >> 50) as usize];
        // A zeroed slot is the right answer for no pawns at all.
        if slot.white != white || slot.black != black {
            let mut score = FullScore::default();
            let passed = terms::pawn_structure(b, &mut score);
            *slot = PawnEntry {
                white,
                black,
                score: score.0,
                passed: passed.0,
            };
        }
        let mut score = Score::<false>(slot.score);
        score.0 += piece_squares;
        terms::pieces(pos, Bitboard(slot.passed), &mut score);
        finish(pos, score.0)
    }
}

fn finish(pos: &Chess, total: Pair) -> i32 {
    let white = taper(total, phase(pos), endgame_scale(pos, total.eg));
    match pos.turn() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// Static evaluation in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Chess) -> i32 {
    let mut score = FullScore::default();
    let passed = terms::pawn_structure(pos.board(), &mut score);
    terms::pieces(pos, passed, &mut score);
    finish(pos, score.0)
}

/// The coefficients of every weight for `pos`: (index, White count minus
/// Black count), for the tuner.
pub fn trace(pos: &Chess) -> Vec<(u16, i16)> {
    struct Trace(Vec<i16>);
    impl Sink for Trace {
        fn add(&mut self, index: usize, color: Color, count: i32) {
            let n = if color == Color::White { count } else { -count };
            self.0[index] += n as i16;
        }
    }
    let mut t = Trace(vec![0; layout::COUNT]);
    let passed = terms::pawn_structure(pos.board(), &mut t);
    terms::pieces(pos, passed, &mut t);
    t.0.iter()
        .enumerate()
        .filter(|(_, c)| **c != 0)
        .map(|(i, &c)| (i as u16, c))
        .collect()
}

/// Every term of the evaluation by side: (name, White, Black).
pub fn breakdown(pos: &Chess) -> Vec<(&'static str, Pair, Pair)> {
    struct Terms(Vec<[Pair; 2]>);
    impl Sink for Terms {
        fn add(&mut self, index: usize, color: Color, count: i32) {
            let block = layout::NAMES
                .iter()
                .rposition(|(_, start, _)| *start <= index)
                .unwrap_or(0);
            let w = WEIGHTS[index];
            let side = usize::from(color == Color::Black);
            self.0[block][side] += Pair {
                mg: w.mg * count,
                eg: w.eg * count,
            };
        }
    }
    let mut t = Terms(vec![[Pair::default(); 2]; layout::NAMES.len()]);
    let passed = terms::pawn_structure(pos.board(), &mut t);
    terms::pieces(pos, passed, &mut t);
    layout::NAMES
        .iter()
        .zip(t.0)
        .filter(|(_, [w, b])| *w != Pair::default() || *b != Pair::default())
        .map(|((name, _, _), [w, b])| (*name, w, b))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::board::test_position as pos;

    #[test]
    fn start_position_is_balanced_but_for_the_move() {
        // Every term cancels between the sides except the tempo bonus of
        // the side to move (all middlegame at the start).
        let tempo = WEIGHTS[layout::TEMPO].mg;
        assert_eq!(evaluate(&Chess::default()), tempo);
        let black = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(evaluate(&black), tempo);
    }

    #[test]
    fn mirrored_positions_score_the_same_for_the_side_to_move() {
        let a = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
        let b = pos("rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4");
        assert_eq!(evaluate(&a), evaluate(&b));
    }

    #[test]
    fn breakdown_trace_and_cache_agree_with_evaluate() {
        let mut cached = Evaluator::default();
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
        ] {
            let p = pos(fen);
            let mut total = Pair::default();
            for (_, w, b) in breakdown(&p) {
                total += w - b;
            }
            let white = taper(total, phase(&p), endgame_scale(&p, total.eg));
            let stm = if p.turn() == Color::White {
                white
            } else {
                -white
            };
            assert_eq!(stm, evaluate(&p), "{fen}");
            let mut traced = Pair::default();
            for (i, c) in trace(&p) {
                let w = WEIGHTS[usize::from(i)];
                traced += Pair {
                    mg: w.mg * i32::from(c),
                    eg: w.eg * i32::from(c),
                };
            }
            assert_eq!(traced, total, "{fen}");
            let squares = piece_squares(&p);
            assert_eq!(cached.evaluate(&p, squares), evaluate(&p));
            assert_eq!(cached.evaluate(&p, squares), evaluate(&p), "from the cache");
        }
    }

    #[test]
    fn drawish_endings_are_scaled_down() {
        // A knight more and no pawns: no win.
        assert!(evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 w - - 0 1")).abs() < 30);
        // Opposite-coloured bishops (c2 light, f6 dark) with a pawn more
        // count for less than same-coloured ones (c2 and f7 both light).
        let opposite = evaluate(&pos("4k3/8/5b2/8/3P4/8/2B5/4K3 w - - 0 1"));
        let same = evaluate(&pos("4k3/5b2/8/8/3P4/8/2B5/4K3 w - - 0 1"));
        assert!(opposite < same, "{opposite} {same}");
    }

    #[test]
    fn extra_material_ranks_by_value_and_a_queen_wins() {
        // The tuned weights set their own scale (the threshold of 800 cp
        // was PeSTO's queen); what must hold is the order of the pieces and
        // that the engine's own win/draw/loss model calls a queen up won.
        let up = |fen: &str| evaluate(&pos(fen));
        let queen = up("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
        let rook = up("4k3/8/8/8/8/8/8/3RK3 w - - 0 1");
        let pawn = up("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1");
        assert!(
            queen > rook && rook > pawn && pawn > 0,
            "{queen} {rook} {pawn}"
        );
        assert!(crate::score::wdl(queen).0 > 900, "{queen}");
    }

    /// A benchmark, not a test: `cargo test --release pawn_hash_speed --
    /// --ignored --nocapture`. The search hashes the pawns up to three
    /// times per node (pawn cache, correction history, pawn history);
    /// this measures what one hash costs, to set against a node's time.
    #[test]
    #[ignore = "benchmark"]
    fn pawn_hash_speed() {
        let boards: Vec<shakmaty::Board> = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "6k1/5pp1/1p2p2p/p2pP3/P2P1P2/1P4P1/6K1/8 w - - 0 40",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ]
        .iter()
        .map(|f| pos(f).board().clone())
        .collect();
        let calls = 100_000_000_u32;
        let start = std::time::Instant::now();
        let mut acc = 0u64;
        let mut i = 0;
        for _ in 0..calls {
            acc = acc.wrapping_add(pawn_hash(std::hint::black_box(&boards[i])));
            i = (i + 1) & 3;
        }
        let ns = start.elapsed().as_secs_f64() * 1e9 / f64::from(calls);
        println!("pawn_hash: {ns:.2} ns per call (checksum {acc:x})");
    }
}
