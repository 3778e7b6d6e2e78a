/// <reference types="node" />

/** A WhatsApp binary node, in Baileys' shape. */
export interface BinaryNode {
  tag: string;
  attrs: { [key: string]: string };
  /** Child nodes, bytes (raw-encoded content), or text (a token, a packed
   * string or a JID). Decoded bytes are Buffers over the input. */
  content?: BinaryNode[] | Uint8Array | string;
}

/** The v3 token dictionary by id: 0 is "", 1..235 single byte tokens,
 * 236 + 256 * dict + index the double byte ones. */
export declare const TOKENS: readonly string[];

/** Decode node bytes (no flags byte, already inflated). Throws an Error
 * whose message names the byte offset on malformed input. */
export declare function decodeDecompressedBinaryNode(buf: Uint8Array | ArrayBuffer): BinaryNode;

/**
 * A node read from the input on access, as
 * {@link decodeDecompressedBinaryNodeLazy} returns it. Each part is read
 * the first time it is asked for and kept; the view holds the input it was
 * decoded from (its byte contents are subarrays of it).
 */
export interface BinaryNodeView {
  /** The tag. */
  readonly tag: string;
  /** All attributes, as the eager decoder gives them. */
  readonly attrs: { [key: string]: string };
  /** The child nodes (as views), bytes, text, or undefined: the eager
   * decoder's content, children as views. */
  readonly content: BinaryNodeView[] | Uint8Array | string | undefined;
  /** The value of one attribute (the last of that key, as in `attrs`), or
   * undefined; reads no other value. */
  attr(key: string): string | undefined;
  /** The node as {@link decodeDecompressedBinaryNode} gives it. */
  toBinaryNode(): BinaryNode;
}

/** Decode node bytes (no flags byte, already inflated) into a view that
 * reads its parts when they are asked for. The whole input is checked
 * first, without making its strings: malformed input throws here, with
 * the message and byte offset {@link decodeDecompressedBinaryNode} gives.
 * The view holds `buf`. */
export declare function decodeDecompressedBinaryNodeLazy(buf: Uint8Array | ArrayBuffer): BinaryNodeView;

/** {@link decodeBinaryNode}, returning a {@link BinaryNodeView}. */
export declare function decodeBinaryNodeLazy(frame: Uint8Array | ArrayBuffer): Promise<BinaryNodeView>;

/** Decode a frame: a flags byte, then node bytes, zlib-compressed when
 * `flags & 2`. Async like Baileys' `decodeBinaryNode`. */
export declare function decodeBinaryNode(frame: Uint8Array | ArrayBuffer): Promise<BinaryNode>;

/** whatsapp-rust-bridge's name: decode a frame (flags byte first),
 * synchronously; returns a plain BinaryNode (nothing to free). */
export declare function decodeNode(frame: Uint8Array | ArrayBuffer): BinaryNode;

/** Encode to a frame: a 0x00 flags byte, then the node bytes. */
export declare function encodeBinaryNode(node: BinaryNode): Buffer;

/** whatsapp-rust-bridge's name for {@link encodeBinaryNode}. */
export declare function encodeNode(node: BinaryNode): Buffer;

/** Bytes of WebAssembly memory the module holds now. */
export declare function wasmMemoryBytes(): number;
