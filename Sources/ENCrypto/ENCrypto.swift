import ENCore
