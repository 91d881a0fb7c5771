// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title VerifyingPaymasterV08
/// @notice A paymaster of EntryPoint v0.8 that pays for an op when its `verifyingSigner` signed the op
/// off chain. The package that ships EntryPoint v0.8 has no verifying paymaster, and v0.7's refuses a
/// v0.8 EntryPoint (its constructor checks the ERC-165 interface id, which v0.8 changed), so Blockyard
/// has its own. It signs exactly what v0.7's signs, so one hash serves both:
///   paymasterAndData = paymaster (20) | verification gas (16) | postOp gas (16)
///                    | abi.encode(uint48 validUntil, uint48 validAfter) (64) | signature (64 or 65)
/// and the signature is the signer's EIP-191 personal signature of `getHash(op, validUntil, validAfter)`.
contract VerifyingPaymasterV08 {
    struct PackedUserOperation {
        address sender;
        uint256 nonce;
        bytes initCode;
        bytes callData;
        bytes32 accountGasLimits;
        uint256 preVerificationGas;
        bytes32 gasFees;
        bytes paymasterAndData;
        bytes signature;
    }

    enum PostOpMode {
        opSucceeded,
        opReverted,
        postOpReverted
    }

    address public immutable entryPoint;
    address public immutable verifyingSigner;
    address public owner;

    uint256 private constant VALID_TIMESTAMP_OFFSET = 52;
    uint256 private constant SIGNATURE_OFFSET = 116;
    /// Signatures with s above half the curve order are malleable copies: refused (EIP-2).
    uint256 private constant HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotEntryPoint();
    error NotOwner();
    error InvalidSignatureLength(uint256 length);
    error PostOpNotExpected();

    constructor(address anEntryPoint, address aVerifyingSigner) {
        entryPoint = anEntryPoint;
        verifyingSigner = aVerifyingSigner;
        owner = msg.sender;
        emit OwnershipTransferred(address(0), msg.sender);
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// What the signer signs: the op without its paymaster data and signature, the paymaster's gas
    /// limits, the chain, this paymaster and the validity window.
    function getHash(PackedUserOperation calldata userOp, uint48 validUntil, uint48 validAfter) public view returns (bytes32) {
        return keccak256(
            abi.encode(
                userOp.sender,
                userOp.nonce,
                keccak256(userOp.initCode),
                keccak256(userOp.callData),
                userOp.accountGasLimits,
                uint256(bytes32(userOp.paymasterAndData[20:52])),
                userOp.preVerificationGas,
                userOp.gasFees,
                block.chainid,
                address(this),
                validUntil,
                validAfter
            )
        );
    }

    function parsePaymasterAndData(bytes calldata paymasterAndData)
        public
        pure
        returns (uint48 validUntil, uint48 validAfter, bytes calldata signature)
    {
        (validUntil, validAfter) = abi.decode(paymasterAndData[VALID_TIMESTAMP_OFFSET:SIGNATURE_OFFSET], (uint48, uint48));
        signature = paymasterAndData[SIGNATURE_OFFSET:];
    }

    function validatePaymasterUserOp(PackedUserOperation calldata userOp, bytes32, uint256)
        external
        view
        returns (bytes memory context, uint256 validationData)
    {
        if (msg.sender != entryPoint) revert NotEntryPoint();
        (uint48 validUntil, uint48 validAfter, bytes calldata signature) = parsePaymasterAndData(userOp.paymasterAndData);
        if (signature.length != 64 && signature.length != 65) revert InvalidSignatureLength(signature.length);
        bytes32 digest = keccak256(
            abi.encodePacked("\x19Ethereum Signed Message:\n32", getHash(userOp, validUntil, validAfter))
        );
        bool signed = recover(digest, signature) == verifyingSigner && verifyingSigner != address(0);
        // validationData: sigFailed (1) in the low 160 bits, then validUntil and validAfter.
        validationData = (signed ? 0 : 1) | (uint256(validUntil) << 160) | (uint256(validAfter) << 208);
        return ("", validationData);
    }

    /// Never called: validation returns an empty context.
    function postOp(PostOpMode, bytes calldata, uint256, uint256) external view {
        if (msg.sender != entryPoint) revert NotEntryPoint();
        revert PostOpNotExpected();
    }

    /// A 65-byte (r, s, v) or 64-byte EIP-2098 (r, yParity+s) signature's signer; zero when it has none.
    function recover(bytes32 digest, bytes calldata signature) internal pure returns (address) {
        bytes32 r = bytes32(signature[0:32]);
        bytes32 vs = bytes32(signature[32:64]);
        uint8 v;
        bytes32 s;
        if (signature.length == 65) {
            s = vs;
            v = uint8(signature[64]);
        } else {
            s = vs & bytes32(0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff);
            v = uint8((uint256(vs) >> 255) + 27);
        }
        if (v < 27) v += 27;
        if (uint256(s) > HALF_CURVE_ORDER || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
    }

    // The deposit and stake, at the EntryPoint.

    function deposit() external payable {
        (bool ok,) = entryPoint.call{value: msg.value}(abi.encodeWithSignature("depositTo(address)", address(this)));
        require(ok, "deposit failed");
    }

    function getDeposit() external view returns (uint256 amount) {
        (bool ok, bytes memory result) = entryPoint.staticcall(abi.encodeWithSignature("balanceOf(address)", address(this)));
        require(ok, "balanceOf failed");
        amount = abi.decode(result, (uint256));
    }

    function withdrawTo(address payable to, uint256 amount) external onlyOwner {
        (bool ok,) = entryPoint.call(abi.encodeWithSignature("withdrawTo(address,uint256)", to, amount));
        require(ok, "withdrawTo failed");
    }

    function addStake(uint32 unstakeDelaySec) external payable onlyOwner {
        (bool ok,) = entryPoint.call{value: msg.value}(abi.encodeWithSignature("addStake(uint32)", unstakeDelaySec));
        require(ok, "addStake failed");
    }

    function unlockStake() external onlyOwner {
        (bool ok,) = entryPoint.call(abi.encodeWithSignature("unlockStake()"));
        require(ok, "unlockStake failed");
    }

    function withdrawStake(address payable to) external onlyOwner {
        (bool ok,) = entryPoint.call(abi.encodeWithSignature("withdrawStake(address)", to));
        require(ok, "withdrawStake failed");
    }
}
