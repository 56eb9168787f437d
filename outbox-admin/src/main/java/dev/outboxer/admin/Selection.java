package dev.outboxer.admin;

import java.util.List;

/**
 * The JSON body of a bulk retry or discard: either message ids or a group key, never both. An
 * empty selection is refused rather than read as "everything". Read strictly, not by JSON-B: one
 * object, each key once, no other key, nothing after it; ids are whole numbers in the range of a
 * {@code long} written as such (not {@code 1.5}, {@code 1e3} or {@code "7"}), 1 to 10,000 of them;
 * the group is a string a group key can be (not blank, no NUL, valid Unicode, at most 255
 * characters); the body is UTF-8, {@code Content-Type: application/json}, at most 1 MiB.
 */
public class Selection {

  /** The message ids; with {@code group} unset. */
  public List<Long> ids;

  /** A group key: every dead message of that group; with {@code ids} unset. */
  public String group;
}
