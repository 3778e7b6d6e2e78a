//! The JID expectations of `wacore-binary` 0.7's own unit tests, restated
//! against quarry's [`Jid`]: their input texts and expected fields are
//! facts about WhatsApp's JID grammar. Where quarry differs on purpose, the
//! difference is listed in `docs/wa-format.md` ("Differences from
//! wacore-binary") and not asserted here.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use quarry_wa::{Jid, Server};

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut h = DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

/// `(text, user, agent, device)` parsed as WhatsApp's text grammar reads it.
#[track_caller]
fn parses_to<'a>(text: &'a str, user: &str, agent: u8, device: u16) -> Jid<'a> {
    let jid = Jid::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(jid.user(), user, "user of {text}");
    assert_eq!(jid.agent(), agent, "agent of {text}");
    assert_eq!(jid.device(), device, "device of {text}");
    jid
}

#[test]
fn an_agent_past_a_byte_leaves_the_user_whole() {
    // `.N` is an agent on these servers only when N fits a byte; a larger
    // number is part of the user, as the decoder renders such a user.
    let jid = parses_to("12345.678@hosted.lid", "12345.678", 0, 0);
    assert_eq!(jid.server(), Server::HostedLid);
    assert_eq!(jid.to_string(), "12345.678@hosted.lid");
    let jid = parses_to("123.999@interop", "123.999", 0, 0);
    assert_eq!(jid.server(), Server::Interop);
    assert_eq!(jid.to_string(), "123.999@interop");
    // 256 is the first number that is no agent, 65536 no u16 either.
    parses_to("7.256@bot", "7.256", 0, 0);
    parses_to("7.65536@bot", "7.65536", 0, 0);
    parses_to("7.255@bot", "7", 255, 0);
}

#[test]
fn an_agent_on_a_device_server_is_neither_text_nor_identity() {
    let jid = Jid::new("5511999887766", Server::Pn)
        .with_agent(1)
        .with_device(7);
    assert_eq!(jid.to_string(), "5511999887766:7@s.whatsapp.net");
    assert_eq!(jid, "5511999887766:7@s.whatsapp.net");
    assert_eq!(jid.rendered_len(), "5511999887766:7@s.whatsapp.net".len());
    let text = jid.to_string();
    let back = Jid::parse(&text).unwrap();
    assert_eq!(back, jid);
    assert_eq!(hash_of(&back), hash_of(&jid));

    for server in [Server::Pn, Server::Lid, Server::Hosted, Server::HostedLid] {
        let clean = Jid::new("123456789012345", server).with_device(7);
        let with_agent = clean.with_agent(1);
        assert_eq!(clean, with_agent, "{server:?}");
        assert_eq!(hash_of(&clean), hash_of(&with_agent), "{server:?}");
        assert_eq!(clean.to_string(), with_agent.to_string(), "{server:?}");
        // The integrator stays part of identity.
        assert_ne!(clean, clean.with_integrator(0xBEEF), "{server:?}");
    }
    // Where the agent is rendered, it is identity.
    let interop = Jid::new("123456789", Server::Interop).with_agent(4);
    assert_ne!(interop, interop.with_agent(5));
    assert_eq!(
        Jid::new("user", Server::Bot)
            .with_agent(5)
            .with_device(10)
            .to_string(),
        "user.5:10@bot"
    );
}
