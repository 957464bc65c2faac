//! Text data: one position a line, `FEN | score | result`, the score in
//! centipawns and the result (`1.0`, `0.5`, `0.0`) from White's side. The
//! handcrafted tuner reads it; `datagen --out FILE.txt` writes it.

use shakmaty::{CastlingMode, Color, Position};

use super::packed::{self, Packed};
use crate::board::Board;
use crate::score::{MAX_PLY, TB_WIN};

/// The positions of `text` as records, and what was wrong with each line
/// skipped.
pub fn read(text: &str) -> (Vec<Packed>, Vec<String>) {
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    for (n, line) in text.lines().enumerate() {
        match read_line(line) {
            Ok(p) => records.push(p),
            Err(e) => skipped.push(format!("line {}: {e}", n + 1)),
        }
    }
    (records, skipped)
}

fn read_line(line: &str) -> Result<Packed, String> {
    let mut parts = line.split('|').map(str::trim);
    let (Some(fen), Some(score), Some(result)) = (parts.next(), parts.next(), parts.next()) else {
        return Err("not 'FEN | score | result'".into());
    };
    let (board, _) = Board::from_fen(fen, CastlingMode::Standard)?;
    let score: i32 = score.parse().map_err(|_| format!("bad score '{score}'"))?;
    let result = match result {
        "1.0" | "1" => 2,
        "0.5" => 1,
        "0.0" | "0" => 0,
        _ => return Err(format!("bad result '{result}'")),
    };
    let pos = board.pos();
    let ply = u32::from(pos.fullmoves()) * 2 - 2 + u32::from(pos.turn() == Color::Black);
    let mut flags = 0;
    if pos.is_check() {
        flags |= packed::FLAG_IN_CHECK;
    }
    if score.abs() >= TB_WIN - MAX_PLY as i32 {
        flags |= packed::FLAG_DECISIVE;
    }
    let score = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    Ok(Packed::new(
        pos,
        score,
        result,
        u16::try_from(ply).unwrap_or(u16::MAX),
        flags,
    ))
}
